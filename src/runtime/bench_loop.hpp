// The C++ harness behind gpufl::bench (include/gpufl/bench.hpp): warm-up, graph capture for tiny
// operations, timed repetitions, then core::summarizeBench. The GPU is behind BenchDevice (CUDA
// events through the driver API in src/cuda/bench_device.cpp; a fake in tests), so the loop is
// tested without one.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/bench_device.hpp"
#include "core/events.hpp"
#include "gpufl/bench.hpp"

namespace gpufl::runtime {

using core::BenchDevice;

// Graph replay packs calls until one replay lasts about this long, so that launch costs are
// amortised.
inline constexpr double kGraphReplayTargetNs = 200e3;
inline constexpr int kMaxGraphCalls = 1000;
inline constexpr int kMaxWarmupReps = 100000;
inline constexpr int kMinAutoReps = 10, kMaxAutoReps = 1000;

// Runs the harness; result.ok is false with result.error when a device step failed.
BenchResult runBench(BenchDevice& device, const std::function<void()>& fn,
                     const BenchOptions& options, BenchmarkResult* record = nullptr);

// The CUDA device of `stream` (src/cuda/bench_device.cpp); nullptr with *error without a GPU or
// without the CUDA backend in this build.
std::unique_ptr<BenchDevice> makeCudaBenchDevice(void* stream, std::string* error);

// `device` with SM clock readings, the max SM clock and throttle reasons from NVML
// (src/runtime/bench_nvml.cpp); `device` itself when NVML cannot be opened.
std::unique_ptr<BenchDevice> watchWithNvml(std::unique_ptr<BenchDevice> device);

}  // namespace gpufl::runtime
