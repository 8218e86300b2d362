#pragma once

#define GPUFL_VERSION_STRING "0.1.0"

namespace gpufl {
inline constexpr const char* kVersion = GPUFL_VERSION_STRING;
}  // namespace gpufl
