#include "cuda/driver_api.hpp"

#include <dlfcn.h>

namespace gpufl::cuda {
namespace {

template <typename Fn>
void bind(void* handle, Fn*& slot, const char* name, const char* fallback = nullptr) {
  void* sym = dlsym(handle, name);
  if (!sym && fallback) sym = dlsym(handle, fallback);
  slot = reinterpret_cast<Fn*>(sym);
}

}  // namespace

std::string driverErrorText(const DriverApi& api, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.getErrorName) api.getErrorName(r, &name);
  if (api.getErrorString) api.getErrorString(r, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  if (text) out += std::string(" (") + text + ")";
  return out;
}

std::unique_ptr<DriverLibrary> DriverLibrary::open(std::string* reason, const std::string& path) {
  // RTLD_NODELETE: after cuInit the driver runs its own threads; unmapping its code under them
  // would crash.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char* err = dlerror();
    std::string detail = err ? err : "";
    if (detail.empty() || detail.find("No such file") != std::string::npos) {
      *reason = "no NVIDIA driver (" + path + " not found)";
    } else {
      *reason = "NVIDIA driver library cannot be loaded (" + detail + ")";
    }
    return nullptr;
  }
  std::unique_ptr<DriverLibrary> lib(new DriverLibrary(handle));
  DriverApi& a = lib->api_;
  bind(handle, a.init, "cuInit");
  bind(handle, a.driverGetVersion, "cuDriverGetVersion");
  bind(handle, a.deviceGetCount, "cuDeviceGetCount");
  bind(handle, a.deviceGet, "cuDeviceGet");
  bind(handle, a.deviceGetName, "cuDeviceGetName");
  bind(handle, a.deviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid");
  bind(handle, a.deviceGetAttribute, "cuDeviceGetAttribute");
  bind(handle, a.deviceTotalMem, "cuDeviceTotalMem_v2");
  bind(handle, a.ctxGetDevice, "cuCtxGetDevice");
  bind(handle, a.getErrorName, "cuGetErrorName");
  bind(handle, a.getErrorString, "cuGetErrorString");
  bind(handle, a.ctxGetCurrent, "cuCtxGetCurrent");
  bind(handle, a.ctxPushCurrent, "cuCtxPushCurrent_v2");
  bind(handle, a.ctxPopCurrent, "cuCtxPopCurrent_v2");
  bind(handle, a.ctxSynchronize, "cuCtxSynchronize");
  bind(handle, a.exchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode");
  bind(handle, a.deviceGetPciBusId, "cuDeviceGetPCIBusId");
  bind(handle, a.eventCreate, "cuEventCreate");
  bind(handle, a.ctxRecordEvent, "cuCtxRecordEvent");
  bind(handle, a.eventQuery, "cuEventQuery");
  bind(handle, a.eventDestroy, "cuEventDestroy_v2");
  bind(handle, a.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(handle, a.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  bind(handle, a.memGetInfo, "cuMemGetInfo_v2");
  const char* missing = !a.init                 ? "cuInit"
                        : !a.deviceGetCount     ? "cuDeviceGetCount"
                        : !a.deviceGet          ? "cuDeviceGet"
                        : !a.deviceGetAttribute ? "cuDeviceGetAttribute"
                                                : nullptr;
  if (missing) {
    *reason = "NVIDIA driver library " + path + " has no " + missing;
    return nullptr;
  }
  return lib;
}

const DriverApi* DriverLibrary::process(std::string* reason) {
  struct Once {
    std::unique_ptr<DriverLibrary> lib;
    std::string reason;
  };
  static const Once once = [] {
    Once o;
    o.lib = open(&o.reason);
    return o;
  }();
  if (!once.lib) {
    if (reason != nullptr) *reason = once.reason;
    return nullptr;
  }
  return &once.lib->api();
}

DriverLibrary::~DriverLibrary() {
  if (handle_) dlclose(handle_);
}

}  // namespace gpufl::cuda
