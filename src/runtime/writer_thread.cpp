#include "runtime/writer_thread.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <system_error>

#include "core/clock.hpp"

namespace gpufl::runtime {

bool WriterThread::start(Round round, std::chrono::milliseconds first_wait, std::string* error) {
  if (thread_.joinable()) return true;
  round_ = std::move(round);
  {
    std::lock_guard lock(mu_);
    stop_ = false;
  }
  // The new thread inherits this mask: block every signal there, then restore ours.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    thread_ = std::thread([this, first_wait] { run(first_wait); });
  } catch (const std::system_error& e) {
    if (error != nullptr) *error = std::string("cannot start the writer thread: ") + e.what();
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return thread_.joinable();
}

void WriterThread::wake() noexcept {
  wake_.store(true, std::memory_order_release);
  cv_.notify_one();  // without the mutex: never blocks the caller; a missed wake waits one period
                     // at most
}

void WriterThread::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

// [writer thread]
void WriterThread::run(std::chrono::milliseconds wait) {
  pthread_setname_np(pthread_self(), "gpufl-writer");
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, wait, [&] { return stop_ || wake_.load(std::memory_order_acquire); });
      if (stop_) break;
    }
    wake_.store(false, std::memory_order_relaxed);
    const int64_t t0 = core::monotonicNs();
    wait = round_();
    busy_ns_.fetch_add(static_cast<uint64_t>(core::monotonicNs() - t0), std::memory_order_relaxed);
    rounds_.fetch_add(1, std::memory_order_relaxed);
  }
  cpu_ns_.store(core::threadCpuNs(), std::memory_order_relaxed);
}

std::chrono::milliseconds nextRoundWait(std::chrono::nanoseconds since_last, double fill,
                                        std::chrono::milliseconds busy,
                                        std::chrono::milliseconds idle) {
  if (!(fill > 0)) return idle;
  const double quarter_ms = static_cast<double>(since_last.count()) / 1e6 * 0.25 / fill;
  if (quarter_ms >= static_cast<double>(idle.count())) return idle;
  return std::max(busy, std::chrono::milliseconds(static_cast<int64_t>(quarter_ms)));
}

}  // namespace gpufl::runtime
