// Which streams of the process are being captured into a CUDA graph, learned from the API callbacks
// of capture begin and end.
//
// While any capture is open, the deep engines must not call anything that synchronizes or
// allocates: a context synchronize invalidates a capture on that context even in relaxed mode
// (measured on the H200: cudaStreamEndCapture then failed with "operation failed due to a previous
// error during capture"), and in global mode any potentially unsafe call from any thread does. A
// launch submitted into a capture does not run either, so there is nothing to instrument. The
// engines defer their synchronizing work until no capture is open, and leave captured launches
// alone.
//
// Thread-safe. Begin and end are rare (once per graph), so a mutex is fine there; open() is one
// relaxed atomic load, for the launch callbacks.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>

namespace gpufl::cuda {

class CaptureTracker {
 public:
  // [app thread, API exit] A capture began on `stream` (only when the call succeeded).
  void began(const void* stream);
  // [app thread, API exit] The capture of `stream` ended (whatever the call returned: a failed end
  // still ends the capture sequence). A stream that was not known to capture is ignored.
  void ended(const void* stream);
  // Captures open now (relaxed: a launch racing with a begin on another thread may miss it; that
  // launch is on a stream that is not capturing).
  bool open() const { return open_.load(std::memory_order_relaxed) > 0; }
  uint64_t capturesSeen() const { return seen_.load(std::memory_order_relaxed); }

 private:
  std::mutex mutex_;
  std::multiset<const void*> streams_;
  std::atomic<int> open_{0};
  std::atomic<uint64_t> seen_{0};
};

}  // namespace gpufl::cuda
