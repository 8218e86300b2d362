// The benchmark harness's GPU (core/bench_device.hpp) through the CUDA driver API, loaded with
// dlopen like driver_api.cpp (libgpufl never links libcuda): events on the caller's stream, graph
// capture and replay, an L2 flush buffer. Runs on the H200 only (tests/gpu); CPU machines get
// nullptr and the reason.
#pragma once

#include <memory>
#include <string>

#include "core/bench_device.hpp"

namespace gpufl::cuda {

// `stream` is the CUstream (cudaStream_t) the work runs on; nullptr is the legacy default stream.
// Uses the calling thread's current context, or device 0's primary context when there is none.
std::unique_ptr<core::BenchDevice> makeBenchDevice(void* stream, std::string* error);

}  // namespace gpufl::cuda
