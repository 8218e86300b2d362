// The device and kernels of the synthetic training session (bench/synthetic_session.*): an H200 as
// the CUDA runtime reports it, and ~30 kernels of a bf16 transformer training step as PyTorch +
// cuBLAS + FlashAttention + NCCL + Triton launch them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/events.hpp"

namespace gpufl::bench {

// The training-loop scope a kernel is launched from.
enum class Phase { Forward, Backward, Optimizer };

// A kernel of the catalog with the model's parameters for its launches.
struct SyntheticKernel {
  KernelDef def;  // sid left empty; occupancy and waves computed for the H200
  Phase phase;
  double weight;  // relative launch frequency within its phase (Zipf-like: a few kernels dominate)
  int64_t base_ns;  // typical duration
  uint32_t stream;  // the stream it runs on
};

// cudaGetDeviceProperties of an NVIDIA H200 (measured on the project's H200 test machine,
// CUDA 13.0).
DeviceInfo h200Device();

// The catalog, ids 1..N in catalog order, with occupancy computed for `device`.
std::vector<SyntheticKernel> syntheticKernels(const DeviceInfo& device);

}  // namespace gpufl::bench
