#include "core/device_peaks.hpp"

#include <string>

namespace gpufl::core {
namespace {

// Dense (no sparsity) tensor-core rates for tf32/bf16/fp16/fp8/int8, CUDA-core rate for fp32,
// tensor-core fp64; memory bandwidth in GB/s. Sources: NVIDIA H200, H100 and A100 data sheets.
constexpr DevicePeaks kPeaks[] = {
    {"NVIDIA H200 NVL", 30, 60, 418, 835, 835, 1671, 1671, 4800},
    {"NVIDIA H200", 67, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4800},
    {"NVIDIA H100 NVL", 60, 60, 417.5, 835, 835, 1670.5, 1670.5, 3900},
    {"NVIDIA H100 PCIe", 51, 51, 378, 756, 756, 1513, 1513, 2000},
    {"NVIDIA H100 80GB HBM3", 67, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3350},
    {"NVIDIA A100-SXM4-80GB", 19.5, 19.5, 156, 312, 312, 0, 624, 2039},
    {"NVIDIA A100-SXM4-40GB", 19.5, 19.5, 156, 312, 312, 0, 624, 1555},
    {"NVIDIA A100 80GB PCIe", 19.5, 19.5, 156, 312, 312, 0, 624, 1935},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

std::optional<DevicePeaks> devicePeaks(std::string_view device_name) {
  const DevicePeaks* best = nullptr;
  for (const DevicePeaks& p : kPeaks)
    if (device_name.substr(0, p.name.size()) == p.name &&
        (!best || p.name.size() > best->name.size()))
      best = &p;
  if (!best) return std::nullopt;
  return *best;
}

double peakTflops(const DevicePeaks& p, std::string_view dtype) {
  std::string d = lower(dtype);
  if (d.rfind("torch.", 0) == 0) d = d.substr(6);
  if (d == "fp32" || d == "float32" || d == "float" || d == "f32") return p.fp32;
  if (d == "tf32") return p.tf32;
  if (d == "bf16" || d == "bfloat16") return p.bf16;
  if (d == "fp16" || d == "float16" || d == "half" || d == "f16") return p.fp16;
  if (d.rfind("fp8", 0) == 0 || d.rfind("float8", 0) == 0) return p.fp8;
  if (d == "int8") return p.int8;
  if (d == "fp64" || d == "float64" || d == "double" || d == "f64") return p.fp64;
  return 0;
}

}  // namespace gpufl::core
