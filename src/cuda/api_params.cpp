#include "cuda/api_params.hpp"

#include <cuda.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

namespace gpufl::cuda {
namespace {

// Mirrors of the parameter structs read below, field for field up to the last one read
// (generated_cuda_runtime_api_meta.h; the driver's come from generated_cuda_meta.h). Runtime types
// are spelled with their driver equivalents: cudaStream_t is CUstream, dim3 three unsigned ints.
struct Dim3Mirror {
  unsigned x, y, z;
};
struct RtLaunchKernel {  // cudaLaunchKernel, cudaLaunchCooperativeKernel (and _ptsz)
  const void* func;
  Dim3Mirror grid, block;
  void** args;
  size_t shared_mem;
  CUstream stream;
};
struct RtLaunchConfig {  // cudaLaunchConfig_t
  Dim3Mirror grid, block;
  size_t dynamic_smem;
  CUstream stream;
};
struct RtLaunchKernelExC {
  const RtLaunchConfig* config;
  const void* func;
};
struct RtGraphLaunch {
  void* graph_exec;
  CUstream stream;
};
struct RtStreamOnly {  // cudaStreamSynchronize
  CUstream stream;
};
struct RtMalloc {  // cudaMalloc, cudaMallocHost, cudaMallocManaged, cudaMallocAsync, cudaHostAlloc
  void** ptr;
  size_t size;
};
struct RtMallocAsync {
  void** ptr;
  size_t size;
  CUstream stream;
};
struct RtMallocFromPoolAsync {
  void** ptr;
  size_t size;
  void* pool;
  CUstream stream;
};
struct RtMallocPitch {
  void** ptr;
  size_t* pitch;
  size_t width, height;
};
struct RtFuncSetAttribute {
  const void* func;
  int attr;  // enum cudaFuncAttribute
  int value;
};
constexpr int kRtPreferredSharedMemoryCarveout =
    9;  // cudaFuncAttributePreferredSharedMemoryCarveout

struct DrvLaunchKernel {  // cuLaunchKernel, cuLaunchCooperativeKernel (and _ptsz)
  CUfunction f;
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem;
  CUstream stream;
};
struct DrvLaunchKernelEx {
  const CUlaunchConfig* config;
  CUfunction f;
};
struct DrvGraphLaunch {
  CUgraphExec graph;
  CUstream stream;
};
struct DrvStreamOnly {
  CUstream stream;
};
struct DrvMemAlloc {  // cuMemAlloc_v2, cuMemAllocManaged, cuMemAllocHost_v2, cuMemHostAlloc
  void* ptr;
  size_t bytes;
};
struct DrvMemAllocAsync {
  void* ptr;
  size_t bytes;
  CUstream stream;
};
struct DrvMemAllocFromPoolAsync {
  void* ptr;
  size_t bytes;
  CUmemoryPool pool;
  CUstream stream;
};
struct DrvMemAllocPitch {
  void* ptr;
  size_t* pitch;
  size_t width, height;
  unsigned element_bytes;
};
struct DrvMemCreate {
  void* handle;
  size_t size;
};
struct DrvFuncSetAttribute {
  CUfunction f;
  CUfunction_attribute attr;
  int value;
};

template <typename T>
const T& as(const void* params) {
  return *static_cast<const T*>(params);
}
uint64_t handle(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

}  // namespace

ApiRole apiRole(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        return ApiRole::KernelLaunch;
      case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
        return ApiRole::GraphLaunch;
      case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
        return ApiRole::Sync;
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        return ApiRole::StreamWait;
      case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
        return ApiRole::Alloc;
      case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        return ApiRole::Free;
      case CUPTI_RUNTIME_TRACE_CBID_cudaFuncSetAttribute_v9000:
        return ApiRole::FuncAttribute;
      default:
        break;
    }
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    switch (cbid) {
      case CUPTI_DRIVER_TRACE_CBID_cuLaunch:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return ApiRole::KernelLaunch;
      case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        return ApiRole::GraphLaunch;
      case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
      case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
      case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
        return ApiRole::Sync;
      case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
      case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
        return ApiRole::StreamWait;
      case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc:
      case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
      case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
      case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
      case CUPTI_DRIVER_TRACE_CBID_cuMemCreate:
        return ApiRole::Alloc;
      case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
      case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
      case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        return ApiRole::Free;
      case CUPTI_DRIVER_TRACE_CBID_cuFuncSetAttribute:
        return ApiRole::FuncAttribute;
      default:
        break;
    }
  }
  return ApiRole::Other;
}

uint64_t streamOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
  if (params == nullptr) return 0;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
        return handle(as<RtLaunchKernel>(params).stream);
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        const RtLaunchConfig* config = as<RtLaunchKernelExC>(params).config;
        return config != nullptr ? handle(config->stream) : 0;
      }
      case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
        return handle(as<RtGraphLaunch>(params).stream);
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
        return handle(as<RtStreamOnly>(params).stream);
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
        return handle(as<RtMallocAsync>(params).stream);
      default:
        return 0;
    }
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return handle(as<DrvLaunchKernel>(params).stream);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* config = as<DrvLaunchKernelEx>(params).config;
      return config != nullptr ? handle(config->hStream) : 0;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      return handle(as<DrvGraphLaunch>(params).stream);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      return handle(as<DrvStreamOnly>(params).stream);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
      return handle(as<DrvMemAllocAsync>(params).stream);
    default:
      return 0;
  }
}

const void* launchFunction(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
  if (params == nullptr) return nullptr;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
        return as<RtLaunchKernel>(params).func;
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        return as<RtLaunchKernelExC>(params).func;
      default:
        return nullptr;
    }
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return as<DrvLaunchKernel>(params).f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return as<DrvLaunchKernelEx>(params).f;
    default:
      return nullptr;
  }
}

bool synchronizesContext(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020;
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize;
}

uint64_t allocationBytes(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
  if (params == nullptr) return 0;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
        return as<RtMalloc>(params).size;
      case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
        const RtMallocPitch& p = as<RtMallocPitch>(params);
        return static_cast<uint64_t>(p.width) * p.height;
      }
      default:
        return 0;
    }
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
      return as<DrvMemAlloc>(params).bytes;
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate:
      return as<DrvMemCreate>(params).size;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
      const DrvMemAllocPitch& p = as<DrvMemAllocPitch>(params);
      return static_cast<uint64_t>(p.width) * p.height;
    }
    default:
      return 0;
  }
}

std::optional<CarveoutRequest> carveoutRequest(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                               const void* params) {
  if (params == nullptr) return std::nullopt;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
      cbid == CUPTI_RUNTIME_TRACE_CBID_cudaFuncSetAttribute_v9000) {
    const RtFuncSetAttribute& p = as<RtFuncSetAttribute>(params);
    if (p.attr != kRtPreferredSharedMemoryCarveout) return std::nullopt;
    return CarveoutRequest{p.func, false, p.value};
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuFuncSetAttribute) {
    const DrvFuncSetAttribute& p = as<DrvFuncSetAttribute>(params);
    if (p.attr != CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) return std::nullopt;
    return CarveoutRequest{p.f, true, p.value};
  }
  return std::nullopt;
}

bool isStickyError(int code) {
  switch (code) {
    case 214:  // ECC uncorrectable
    case 220:  // NVLink uncorrectable
    case 700:  // illegal address
    case 702:  // launch timeout
    case 709:  // context is destroyed
    case 710:  // device-side assert
    case 714:  // hardware stack error
    case 715:  // illegal instruction
    case 716:  // misaligned address
    case 717:  // invalid address space
    case 718:  // invalid PC
    case 719:  // launch failure
      return true;
    default:
      return false;
  }
}

const char* errorName(int code) {
  switch (code) {
    case 2:
      return "cudaErrorMemoryAllocation";
    case 214:
      return "cudaErrorECCUncorrectable";
    case 220:
      return "cudaErrorNvlinkUncorrectable";
    case 700:
      return "cudaErrorIllegalAddress";
    case 702:
      return "cudaErrorLaunchTimeout";
    case 709:
      return "cudaErrorContextIsDestroyed";
    case 710:
      return "cudaErrorAssert";
    case 714:
      return "cudaErrorHardwareStackError";
    case 715:
      return "cudaErrorIllegalInstruction";
    case 716:
      return "cudaErrorMisalignedAddress";
    case 717:
      return "cudaErrorInvalidAddressSpace";
    case 718:
      return "cudaErrorInvalidPc";
    case 719:
      return "cudaErrorLaunchFailure";
    default:
      return nullptr;
  }
}

}  // namespace gpufl::cuda
