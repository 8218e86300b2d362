// The CUDA backend as a session collector: device properties, CUPTI tracing and the deep engines.
#pragma once

#include <memory>

#include "core/collector.hpp"

namespace gpufl::cuda {

// Registered by the runtime (src/runtime/builtin_collectors.cpp).
std::unique_ptr<core::Collector> makeCollector(const InitOptions& options);

}  // namespace gpufl::cuda
