// What the flight recorder reads from a CUDA call at its API callback: which stream a launch or a
// synchronize names, how many bytes an allocation asked for, what a function attribute was set to,
// and what a returned error code means. The parameter structs are CUPTI's (generated_cuda_meta.h,
// generated_cuda_runtime_api_meta.h); only the few fields read are mirrored here, so that building
// needs nothing beyond cuda.h (api_params_test checks the mirrors against the real headers where
// they are present).
#pragma once

#include <cupti_callbacks.h>

#include <cstdint>
#include <optional>

namespace gpufl::cuda {

// What a traced call is, for the flight recorder.
enum class ApiRole : uint8_t {
  Other,
  KernelLaunch,
  GraphLaunch,
  Copy,        // a copy or a set (its blocking forms wait for the GPU)
  Sync,        // a stream, event, context or device synchronize
  StreamWait,  // cudaStreamWaitEvent: orders streams, does not wait on the host
  Alloc,       // device, pinned, managed or pool memory
  Free,
  FuncAttribute,  // cudaFuncSetAttribute / cuFuncSetAttribute
};
ApiRole apiRole(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

// The stream a launch, a graph launch, a synchronize or an asynchronous allocation names (the
// handle; 0 for the legacy default stream or a call that names none).
uint64_t streamOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);
// The function a kernel launch names: the host stub for the runtime's launches, the CUfunction for
// the driver's (nullptr when not known).
const void* launchFunction(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);
// A device or context synchronize (everything before it on the context has finished).
bool synchronizesContext(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
// The bytes an allocation asked for (0 when the call is not one or its size is not known).
uint64_t allocationBytes(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);

// A function's shared-memory carveout preference being set: the function (the host stub for the
// runtime call, the CUfunction for the driver's) and the percentage asked for.
struct CarveoutRequest {
  const void* function = nullptr;
  bool driver = false;  // function is a CUfunction
  int percent = 0;
};
std::optional<CarveoutRequest> carveoutRequest(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                               const void* params);

// cudaError_t and CUresult share these numbers. A sticky error leaves the context unusable: every
// later call on it fails the same way.
bool isStickyError(int code);
inline bool isOutOfMemory(int code) {
  return code == 2;  // cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY
}
// "cudaErrorIllegalAddress", ... (static text), or nullptr for a code this table does not name.
const char* errorName(int code);

}  // namespace gpufl::cuda
