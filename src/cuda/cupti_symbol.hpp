// One symbol of the libcupti gpufl loads (cupti_loader.hpp, same search and same copy), for code
// outside src/cuda that must not include cupti.h: the NVTX entry points of the injection library
// (src/inject/nvtx_forward.cpp) hand NVTX to this libcupti.
#pragma once

namespace gpufl::cuda {

// dlsym in the loaded libcupti (loading it on first use); nullptr when libcupti or the symbol is
// missing.
void* loadedCuptiSymbol(const char* name) noexcept;

}  // namespace gpufl::cuda
