#pragma once

#include <cstdint>
#include <shared_mutex>

namespace gpufl::cuda {

// Keeps kernel launches of different host threads apart while SASS patching is on.
//
// With SASS metrics enabled on a context, CUPTI patches each function lazily inside the launch
// call. Four host threads launching into one context at once then deadlocked inside libcupti and
// libcuda on the H200 (one thread on a CUPTI mutex, one on the driver's rwlock; no gpufl frame in
// either stack). Nsight Compute serializes launches for the same reason. So a launch that may be
// patched holds the gate exclusively from its API enter to its API exit, and every other launch
// holds it shared: launches run concurrently again as soon as SASS is off, and nothing enables
// SASS while a launch of another thread is inside the driver.
//
// Taken only at launch API enter/exit and capture begin (API callbacks, where the thread holds
// no driver lock), never in resource callbacks. Re-entrant per thread: a launch made by gpufl
// inside another launch's callback passes through.
class LaunchGate {
 public:
  enum class Hold : uint8_t { None, Shared, Exclusive };

  // At launch enter. `exclusive` asks for the exclusive hold; no-op when this thread already
  // holds the gate (a nested launch). `key` identifies the launch whose exit releases it.
  void enter(bool exclusive, uint64_t key);
  // Shared -> exclusive (released and re-taken: another thread may run in between).
  void upgrade();
  // At launch exit: releases when `key` is the launch that took the gate on this thread.
  void leave(uint64_t key);
  // The hold of the calling thread.
  Hold held() const;

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
  std::shared_mutex mutex_;
};

}  // namespace gpufl::cuda
