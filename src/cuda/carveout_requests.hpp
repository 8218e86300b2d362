// The shared-memory carveout a function asked for with cudaFuncSetAttribute / cuFuncSetAttribute,
// carried to its launches: CUPTI's kernel record does not always say it (seen on the H100 in a
// program mixing threads, graphs and NVTX: no carveout in the record, 3 blocks per SM really), and
// occupancy depends on it.
//
// set() runs at the attribute call's exit (rare; a mutex). At each launch, noteLaunch() looks the
// launched function up only once some function has a request (one relaxed load otherwise) and
// remembers the percent under the launch's correlation id; the writer thread asks forLaunch() when
// the record has none. A launch whose entry is overwritten before its record arrives (more than
// kLaunchSlots launches of functions with requests in between) goes without: counted by nobody,
// and harmless, since the record's own value is used first.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace gpufl::cuda {

class CarveoutRequests {
 public:
  static constexpr size_t kFunctions = 256;
  static constexpr size_t kLaunchSlots = 4096;

  // [app thread] `function` (a host stub or a CUfunction) asks for `percent` (-1: no preference).
  void set(const void* function, int percent);
  // [app thread] Whether any function has a request: only then is a launch's function looked up.
  bool any() const { return used_.load(std::memory_order_relaxed) != 0; }
  // [app thread] A launch of `function` with this correlation id.
  void noteLaunch(const void* function, uint32_t correlation_id) {
    if (!any() || function == nullptr) return;
    const int percent = lookup(function);
    if (percent < 0) return;
    Slot& s = launches_[correlation_id % kLaunchSlots];
    s.corr.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    s.percent.store(percent, std::memory_order_relaxed);
    s.corr.store(correlation_id, std::memory_order_release);
  }
  // [writer thread] The percent the launch asked for, or -1.
  int forLaunch(uint32_t correlation_id) const;

 private:
  int lookup(const void* function) const;

  struct Entry {
    std::atomic<const void*> function{nullptr};
    std::atomic<int> percent{-1};
  };
  struct Slot {
    std::atomic<uint32_t> corr{0};
    std::atomic<int> percent{-1};
  };
  std::mutex mu_;  // set() against set()
  std::atomic<size_t> used_{0};
  Entry functions_[kFunctions];
  Slot launches_[kLaunchSlots];
};

}  // namespace gpufl::cuda
