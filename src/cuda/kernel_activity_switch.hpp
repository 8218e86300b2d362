// Which CUPTI activity kind records kernels while a SASS engine runs, switched at run time.
//
// CONCURRENT_KERNEL keeps the program's own timing and the timestamps of CUDA graph kernels.
// KERNEL serializes kernels and gives most graph kernels start = end = 0 (H200, CUDA 13.0: 980 of
// 1,001 in a captured graph), and a program whose results depend on timing (XLA's atomic
// reductions) computes other numbers under it; but SASS metrics read 0 under CONCURRENT_KERNEL,
// and CUPTI refuses to enable CONCURRENT_KERNEL while SASS metrics are enabled
// (CUPTI_ERROR_NOT_COMPATIBLE). The SASS engines instrument only the first few launches of each
// function, so kernels are traced serialized only while instrumentation may run: from the launch
// that enables SASS until no launch has been instrumented for `quiet_ns` and SASS is off on every
// context; then concurrently again, until a new function's launch needs instrumenting.
//
// The two kinds are never enabled together (CUPTI does not allow it): a swap disables one, then
// enables the other. Swaps happen only in a launch callback holding the launch gate exclusively
// (no other thread is between its launch's enter and exit, so no launch falls between the kinds)
// and never during a stream capture; records of kernels launched before a swap still arrive
// (CUPTI delivers in-flight work of a disabled kind, as at the tracer's stop). A swap CUPTI refuses
// leaves the kernels as they were: back to the old kind, and serialized for good when the way back
// to concurrent failed. GPUFL_SASS_SERIALIZE=always keeps the whole run serialized (the behaviour
// before the switch, for comparison).
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace gpufl::cuda {

class KernelActivitySwitch {
 public:
  enum class Mode : uint8_t { Concurrent, Serialized, SerializedForGood };
  // CUPTI's enable and disable (tests give fakes).
  struct Ops {
    std::function<CUptiResult(CUpti_ActivityKind)> enable;
    std::function<CUptiResult(CUpti_ActivityKind)> disable;
  };
  struct Stats {
    uint64_t windows = 0;       // times kernels went serialized
    int64_t serialized_ns = 0;  // time spent serialized (up to now for an open window)
    uint64_t failed_swaps = 0;  // swaps CUPTI refused
  };

  static constexpr int64_t kDefaultQuietNs = 200'000'000;  // 200 ms without instrumentation

  KernelActivitySwitch(Ops ops, int64_t quiet_ns = kDefaultQuietNs);

  // [init] Enables the first kind: CONCURRENT_KERNEL, or KERNEL for good when `always_serialized`.
  // False (and `why`) when CUPTI refused.
  bool start(bool always_serialized, std::string* why);
  // [stop] Disables whichever kind is on.
  void stop();

  // [launch callback, gate held exclusively] Kernels serialized from now on (before SASS is
  // enabled); false when CUPTI refused the swap (kernels stay concurrent: SASS must not be
  // enabled).
  bool serialize(int64_t now_ns);
  // [launch callback] A launch was instrumented at `now_ns`: the quiet period starts again.
  void instrumented(int64_t now_ns) { last_use_ns_.store(now_ns, std::memory_order_relaxed); }
  // [launch callback] Whether relax() would swap now: serialized (not for good) and quiet since
  // the last instrumented launch. Cheap: one load when concurrent.
  bool relaxDue(int64_t now_ns) const;
  // [launch callback, gate held exclusively, SASS off everywhere, no capture open] Back to
  // concurrent when relaxDue(now_ns) still holds; true when it swapped.
  bool relax(int64_t now_ns);

  Mode mode() const { return mode_.load(std::memory_order_acquire); }
  CUpti_ActivityKind kind() const;  // the kind on now
  Stats stats(int64_t now_ns) const;
  // What happened, for the kernel_activity note at the end ("" when nothing was serialized).
  std::string summary(int64_t now_ns, int64_t traced_ns) const;

 private:
  bool swap(CUpti_ActivityKind from, CUpti_ActivityKind to);

  Ops ops_;
  const int64_t quiet_ns_;
  std::atomic<Mode> mode_{Mode::Concurrent};
  std::atomic<int64_t> last_use_ns_{0};
  mutable std::mutex mu_;  // swaps, and the statistics below
  bool started_ = false;
  int64_t window_begin_ns_ = 0;  // of the open window, when serialized
  Stats stats_;
};

}  // namespace gpufl::cuda
