// A thread that calls a function every `period`, used for NVML and host sampling.
//
// Ticks are scheduled at fixed times (start + k * period); when a tick overruns, the missed times
// are skipped rather than run back to back. stop() wakes the thread at once (condition variable),
// waits for a tick in progress to finish and joins. The tick runs on the sampler's thread ([sampler
// thread]) and must not throw. The thread is named "gpufl-sampler" (its CPU time in health
// records).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace gpufl::host {

class PeriodicSampler {
 public:
  using Tick = std::function<void(int64_t now_ns)>;
  using Clock =
      std::function<int64_t()>;  // the timestamp handed to each tick; default core::monotonicNs

  PeriodicSampler(std::chrono::milliseconds period, Tick tick, Clock clock = {});
  ~PeriodicSampler();  // stops
  PeriodicSampler(const PeriodicSampler&) = delete;
  PeriodicSampler& operator=(const PeriodicSampler&) = delete;

  // Starts the thread. With tick_now the first tick runs immediately and always runs, even if
  // stop() follows at once; otherwise it runs one period later. False when already running or the
  // period is not positive.
  bool start(bool tick_now = true);
  // Idempotent; safe to call from any thread except the tick itself.
  void stop();

  // [any thread] Ticks `factor` times less often from the next tick on (1: as constructed). For
  // gpufl's step-down when its cost crosses the user's limits (core/step_down.hpp).
  void setSlowdown(int factor) {
    slowdown_.store(factor < 1 ? 1 : factor, std::memory_order_relaxed);
  }

  bool running() const { return running_.load(std::memory_order_acquire); }
  uint64_t ticks() const { return ticks_.load(std::memory_order_relaxed); }
  // Scheduled ticks skipped because an earlier tick overran.
  uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }

 private:
  void loop(bool tick_now);

  const std::chrono::milliseconds period_;
  Tick tick_;
  Clock clock_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_requested_ = false;  // guarded by mutex_
  std::atomic<bool> running_{false};
  std::atomic<uint64_t> ticks_{0};
  std::atomic<uint64_t> skipped_{0};
  std::atomic<int> slowdown_{1};
};

}  // namespace gpufl::host
