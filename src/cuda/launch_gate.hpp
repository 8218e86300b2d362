#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <shared_mutex>
#include <string>

namespace gpufl::cuda {

// Keeps kernel launches of different host threads apart while SASS patching is on.
//
// With SASS metrics enabled on a context, CUPTI patches each function lazily inside the launch
// call. Four host threads launching into one context at once then deadlocked inside libcupti and
// libcuda on the H200 (one thread on a CUPTI mutex, one on the driver's rwlock; no gpufl frame in
// either stack); PC sampling's start/stop did the same against concurrent launches. Nsight Compute
// serializes launches for the same reason. So a launch during which an engine enables
// instrumentation or calls such APIs holds the gate exclusively from its API enter to its API
// exit, and every other launch holds it shared: launches run concurrently again once SASS is off.
//
// Taken only at launch API enter/exit, capture begin and engine stop (where the thread holds no
// driver lock), never in resource callbacks. Re-entrant per thread: a launch made inside another
// launch's callback passes through. Never a cause of a hang: a hold not had within `patience`
// (a launch of another thread that never returned) gives the gate up for good, says so through
// `on_give_up`, and launches go on unserialized, as they would without the gate.
class LaunchGate {
 public:
  enum class Hold : uint8_t { None, Shared, Exclusive };

  explicit LaunchGate(std::chrono::milliseconds patience = std::chrono::seconds(5))
      : patience_(patience) {}
  // Called once, from the thread that gave up (for a note in the log).
  void onGiveUp(std::function<void(const std::string&)> callback) {
    on_give_up_ = std::move(callback);
  }

  // At launch enter. `exclusive` asks for the exclusive hold; no-op when this thread already
  // holds the gate (a nested launch). `key` identifies the launch whose exit releases it.
  void enter(bool exclusive, uint64_t key);
  // Shared -> exclusive (released and re-taken: another thread may run in between).
  void upgrade();
  // At launch exit: releases when `key` is the launch that took the gate on this thread.
  void leave(uint64_t key);
  // The hold of the calling thread.
  Hold held() const;
  bool givenUp() const { return given_up_.load(std::memory_order_relaxed); }

  // Exclusive for a scope (capture begin, stop): waits for launches in flight; no-op when the
  // calling thread already holds the gate.
  class Exclusive {
   public:
    explicit Exclusive(LaunchGate& gate);
    ~Exclusive();
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;

   private:
    LaunchGate* gate_;  // null when nothing was taken
  };

 private:
  bool take(bool exclusive);  // false: gave up (or had given up before)
  void giveUp();

  const std::chrono::milliseconds patience_;
  std::shared_timed_mutex mutex_;
  std::atomic<bool> given_up_{false};
  std::function<void(const std::string&)> on_give_up_;
};

}  // namespace gpufl::cuda
