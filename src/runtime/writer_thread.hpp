// The session's background thread: runs a "round" (drain buffers and collectors, write, flush)
// periodically, or sooner when woken. It blocks every signal, so the profiled program's signal
// handling is unchanged, and it keeps its own time and CPU accounting for session_end's overhead
// figures.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gpufl::runtime {

class WriterThread {
 public:
  // [writer thread] One round; returns how long to wait before the next one.
  using Round = std::function<std::chrono::milliseconds()>;

  WriterThread() = default;
  ~WriterThread() { stop(); }
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  // Starts the thread (first round after `first_wait`). False with *error when the thread cannot be
  // created.
  bool start(Round round, std::chrono::milliseconds first_wait, std::string* error);
  // Any thread: ask for a round soon. Never blocks on the round; may coalesce with the next
  // periodic round.
  void wake() noexcept;
  // Stops after the current round, if any, and joins. No further round runs. Idempotent.
  void stop();

  bool running() const { return thread_.joinable(); }
  uint64_t busyNs() const {
    return busy_ns_.load(std::memory_order_relaxed);
  }  // wall time inside rounds
  uint64_t cpuNs() const {
    return cpu_ns_.load(std::memory_order_relaxed);
  }  // thread CPU time, final after stop()
  uint64_t rounds() const { return rounds_.load(std::memory_order_relaxed); }

 private:
  void run(std::chrono::milliseconds first_wait);  // [writer thread]

  Round round_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::atomic<bool> wake_{false};
  std::atomic<uint64_t> busy_ns_{0}, cpu_ns_{0}, rounds_{0};
};

// How long the writer waits before its next round. `fill` is the fullest thread buffer's fill
// (0..1) this round found, after `since_last` of filling. Aims to drain buffers at a quarter full:
// waits as long as a buffer takes to fill that far at the rate just seen, between `busy` and
// `idle`. A fixed short period only while a buffer was over a quarter full let a steady 200k
// scope records/s alternate between the periods and overflow on every long one (13,854 of 88,000
// dropped, dev VM).
std::chrono::milliseconds nextRoundWait(std::chrono::nanoseconds since_last, double fill,
                                        std::chrono::milliseconds busy,
                                        std::chrono::milliseconds idle);

}  // namespace gpufl::runtime
