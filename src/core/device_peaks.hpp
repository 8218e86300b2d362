// The peak rates of known GPUs, from their vendor data sheets (dense math, boost clock): what
// benchmark rates are compared against (gpufl.bench, gpufl::bench, the report). A GPU not listed
// has no peaks (0), and rates are shown without a percentage rather than against a guess.
#pragma once

#include <optional>
#include <string_view>

namespace gpufl::core {

struct DevicePeaks {
  std::string_view name;  // as the driver names it, e.g. "NVIDIA H200"
  double fp64 = 0, fp32 = 0, tf32 = 0, bf16 = 0, fp16 = 0, fp8 = 0,
         int8 = 0;  // TFLOP/s (TOP/s for int8)
  double gbps = 0;  // device memory bandwidth, GB/s
};

// The entry whose name the device name starts with (the longest such), or nothing.
std::optional<DevicePeaks> devicePeaks(std::string_view device_name);

// The peak for a dtype name ("fp32", "float32", "torch.bfloat16", "bf16", "tf32", "fp16", "half",
// "fp8", "int8", "fp64", "double"); 0 for a dtype it does not know.
double peakTflops(const DevicePeaks& peaks, std::string_view dtype);

}  // namespace gpufl::core
