// The CUDA driver API entry points GPU Flight calls, loaded with dlopen("libcuda.so.1") at run
// time: libgpufl must load, and say why it cannot trace, on a machine without an NVIDIA driver, so
// it never links libcuda. Types come from cuda.h (declarations only; nothing from the toolkit is
// linked). This is the one libcuda table: the device properties and the deep engines (through
// EngineContext::driver, deep_engine.hpp) call the driver through it.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

namespace gpufl::cuda {

inline constexpr const char* kDriverLibraryName = "libcuda.so.1";

// A null entry is a function this driver does not export. Tests fill the table with fakes.
struct DriverApi {
  CUresult (*init)(unsigned int) = nullptr;                   // cuInit
  CUresult (*driverGetVersion)(int*) = nullptr;               // cuDriverGetVersion
  CUresult (*deviceGetCount)(int*) = nullptr;                 // cuDeviceGetCount
  CUresult (*deviceGet)(CUdevice*, int) = nullptr;            // cuDeviceGet
  CUresult (*deviceGetName)(char*, int, CUdevice) = nullptr;  // cuDeviceGetName
  CUresult (*deviceGetUuid)(CUuuid*, CUdevice) = nullptr;     // cuDeviceGetUuid_v2 (or v1)
  CUresult (*deviceGetAttribute)(int*, CUdevice_attribute,
                                 CUdevice) = nullptr;            // cuDeviceGetAttribute
  CUresult (*deviceTotalMem)(size_t*, CUdevice) = nullptr;       // cuDeviceTotalMem_v2
  CUresult (*ctxGetDevice)(CUdevice*) = nullptr;                 // cuCtxGetDevice
  CUresult (*getErrorName)(CUresult, const char**) = nullptr;    // cuGetErrorName
  CUresult (*getErrorString)(CUresult, const char**) = nullptr;  // cuGetErrorString
  // The deep engines' calls (deep_support.hpp: synchronizeContext, the range profiler's scopes).
  CUresult (*ctxGetCurrent)(CUcontext*) = nullptr;  // cuCtxGetCurrent
  CUresult (*ctxPushCurrent)(CUcontext) = nullptr;  // cuCtxPushCurrent_v2
  CUresult (*ctxPopCurrent)(CUcontext*) = nullptr;  // cuCtxPopCurrent_v2
  CUresult (*ctxSynchronize)() = nullptr;           // cuCtxSynchronize
  CUresult (*exchangeStreamCaptureMode)(CUstreamCaptureMode*) =
      nullptr;  // cuThreadExchangeStreamCaptureMode
  // Optional for the deep engines: a bounded wait records an event for the context (CUDA 12.5+)
  // and polls it; without these, waits fall back to cuCtxSynchronize.
  CUresult (*deviceGetPciBusId)(char*, int, CUdevice) = nullptr;  // cuDeviceGetPCIBusId
  CUresult (*eventCreate)(CUevent*, unsigned int) = nullptr;      // cuEventCreate
  CUresult (*ctxRecordEvent)(CUcontext, CUevent) = nullptr;       // cuCtxRecordEvent
  CUresult (*eventQuery)(CUevent) = nullptr;                      // cuEventQuery
  CUresult (*eventDestroy)(CUevent) = nullptr;                    // cuEventDestroy_v2
  // Optional for the SASS engines: they hold a reference on the primary context they patch in.
  CUresult (*primaryCtxRetain)(CUcontext*, CUdevice) = nullptr;  // cuDevicePrimaryCtxRetain
  CUresult (*primaryCtxRelease)(CUdevice) = nullptr;             // cuDevicePrimaryCtxRelease_v2
  // The flight recorder: free and total memory at an out-of-memory error.
  CUresult (*memGetInfo)(size_t*, size_t*) = nullptr;  // cuMemGetInfo_v2
};

// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)", or "CUDA error <n>" without the
// driver's names.
std::string driverErrorText(const DriverApi& api, CUresult r);

// libcuda opened with dlopen; closed on destruction.
class DriverLibrary {
 public:
  // nullptr with `reason` set when the library is missing ("no NVIDIA driver (libcuda.so.1 not
  // found)"), cannot be loaded, or lacks cuInit/cuDeviceGetCount/cuDeviceGet/cuDeviceGetAttribute.
  static std::unique_ptr<DriverLibrary> open(std::string* reason,
                                             const std::string& path = kDriverLibraryName);
  ~DriverLibrary();
  DriverLibrary(const DriverLibrary&) = delete;
  DriverLibrary& operator=(const DriverLibrary&) = delete;

  const DriverApi& api() const { return api_; }

  // The process's one copy, opened at the first call (thread-safe) and kept to the end of the
  // process: nullptr, with `reason` set as open() sets it, when there is none. Every later call
  // returns the first call's outcome.
  static const DriverApi* process(std::string* reason);

 private:
  explicit DriverLibrary(void* handle) : handle_(handle) {}
  void* handle_;
  DriverApi api_;
};

}  // namespace gpufl::cuda
