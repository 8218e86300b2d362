// NVTX's tool entry points, for `gpufl trace`: it sets NVTX_INJECTION64_PATH to this library (the
// same file as CUDA_INJECTION64_PATH), and NVTX calls InitializeInjectionNvtx2 here at the first
// NVTX call of each library, which may come before CUDA initialises and loads us for tracing. We
// hand the call to the libcupti that gpufl's loader picks (cuda/cupti_loader.hpp), so NVTX and the
// tracer share one copy of CUPTI whatever its path: the loader reuses a libcupti already in the
// process, and otherwise loads the one the tracer will then reuse. The CLI therefore never has to
// guess where libcupti is.
//
// Returning 0 tells NVTX there is no tool: its calls become no-ops (built without the CUDA
// backend, libcupti not found, or a libcupti without NVTX support).
#include <cstdint>

#if GPUFL_INJECT_HAVE_CUPTI
#include "cuda/cupti_symbol.hpp"
#endif

namespace {

void* cuptiEntry(const char* name) {
#if GPUFL_INJECT_HAVE_CUPTI
  return gpufl::cuda::loadedCuptiSymbol(name);
#else
  (void)name;
  return nullptr;
#endif
}

}  // namespace

// NvtxInitializeInjectionNvtxFunc_t (nvtx3/nvtxDetail/nvtxTypes.h).
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(uint32_t)) {
  using Fn = int (*)(const void* (*)(uint32_t));
  auto fn = reinterpret_cast<Fn>(cuptiEntry("InitializeInjectionNvtx2"));
  return fn != nullptr ? fn(get_export_table) : 0;
}

// NvtxExtInitializeInjectionFunc_t (nvtx3/nvtxDetail/nvtxExtInit.h): NVTX extensions (payloads,
// counters) look for it in the same library.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(
    void* module_info) {
  using Fn = int (*)(void*);
  auto fn = reinterpret_cast<Fn>(cuptiEntry("InitializeInjectionNvtxExtension"));
  return fn != nullptr ? fn(module_info) : 0;
}
