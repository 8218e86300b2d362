// The CUDA backend as a session collector: device properties, CUPTI tracing and the deep engines.
#pragma once

#include <memory>

#include "runtime/collector.hpp"

namespace gpufl::cuda {

// Registered with the runtime through GPUFL_COLLECTORS (src/cuda/tracer.cmake).
std::unique_ptr<runtime::Collector> makeCollector(const InitOptions& options);

}  // namespace gpufl::cuda
