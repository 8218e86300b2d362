#include "host/periodic_sampler.hpp"

#include <pthread.h>

#include <utility>

#include "core/clock.hpp"

namespace gpufl::host {

PeriodicSampler::PeriodicSampler(std::chrono::milliseconds period, Tick tick, Clock clock)
    : period_(period), tick_(std::move(tick)), clock_(std::move(clock)) {
  if (!clock_) clock_ = [] { return core::monotonicNs(); };
}

PeriodicSampler::~PeriodicSampler() {
  stop();
}

bool PeriodicSampler::start(bool tick_now) {
  if (period_.count() <= 0 || !tick_ || thread_.joinable()) return false;
  {
    std::lock_guard lock(mutex_);
    stop_requested_ = false;
  }
  running_.store(true, std::memory_order_release);
  thread_ = std::thread([this, tick_now] { loop(tick_now); });
  return true;
}

void PeriodicSampler::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_requested_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  running_.store(false, std::memory_order_release);
}

// [sampler thread]
void PeriodicSampler::loop(bool tick_now) {
  pthread_setname_np(pthread_self(), "gpufl-sampler");
  using SteadyClock = std::chrono::steady_clock;
  auto next = SteadyClock::now();
  std::unique_lock lock(mutex_);
  if (!tick_now) {
    next += period_;
    if (wake_.wait_until(lock, next, [this] { return stop_requested_; })) return;
  }
  do {  // with tick_now, every start() ticks at least once, even when stop() follows at once
    lock.unlock();
    tick_(clock_());
    ticks_.fetch_add(1, std::memory_order_relaxed);
    lock.lock();

    const auto period = period_ * slowdown_.load(std::memory_order_relaxed);
    next += period;
    const auto now = SteadyClock::now();
    if (next <= now) {  // overran: skip to the first scheduled time still ahead
      const auto behind = (now - next) / period + 1;
      skipped_.fetch_add(static_cast<uint64_t>(behind), std::memory_order_relaxed);
      next += period * behind;
    }
    wake_.wait_until(lock, next, [this] { return stop_requested_; });
  } while (!stop_requested_);
}

}  // namespace gpufl::host
