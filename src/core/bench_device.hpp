// The GPU as the benchmark harness (runtime/bench_loop.hpp) sees it: GPU-free, so the harness is
// tested with a fake; the CUDA implementation is src/cuda/bench_device.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpufl::core {

class BenchDevice {
 public:
  virtual ~BenchDevice() = default;
  // Enqueues `work` between two events on the stream and returns their elapsed GPU time in ns; < 0
  // with *error on a failure.
  virtual double timed(const std::function<void()>& work, std::string* error) = 0;
  // Captures `calls` calls of fn into one CUDA graph; timedReplay then times one launch of it.
  virtual bool capture(const std::function<void()>& fn, int calls, std::string* error) = 0;
  virtual double timedReplay(std::string* error) = 0;
  // Overwrites a buffer the size of L2 on the stream (the next repetition starts cold).
  virtual bool flushL2(std::string* error) = 0;
  // GPU time of the smallest operation timed the same way (1-byte memset): the launch overhead
  // floor.
  virtual double launchOverheadNs() = 0;
  // NVML's current SM clock and reasons (empty when unavailable); read around the repetitions.
  virtual std::optional<int> smClockMhz() { return std::nullopt; }
  virtual std::optional<int> smClockLimitMhz() { return std::nullopt; }
  virtual std::vector<std::string> throttleReasons() { return {}; }
  // Other processes using the GPU, e.g. "pid 4242 (python3)".
  virtual std::vector<std::string> otherProcesses() { return {}; }
  // The device's peak rates for the rates to be compared against (0: unknown).
  virtual double peakTflops(const std::string& /*dtype*/) { return 0; }
  virtual double peakGbps() { return 0; }
  virtual uint32_t deviceIndex() { return 0; }
};

}  // namespace gpufl::core
