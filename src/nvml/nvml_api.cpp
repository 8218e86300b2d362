#include "nvml/nvml_api.hpp"

#include <dlfcn.h>

namespace gpufl::nvml {
namespace {

template <typename Fn>
void bind(void* handle, Fn*& slot, const char* name, const char* fallback = nullptr) {
  void* sym = dlsym(handle, name);
  if (!sym && fallback) sym = dlsym(handle, fallback);
  slot = reinterpret_cast<Fn*>(sym);
}

}  // namespace

std::string errorText(const Api& api, Return r) {
  if (api.errorString) {
    if (const char* s = api.errorString(r)) return s;
  }
  return "NVML error " + std::to_string(r);
}

std::unique_ptr<Library> Library::open(const std::string& path, std::string* reason) {
  // RTLD_NODELETE: never unmap a driver library that may still run threads of its own.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char* err = dlerror();
    *reason = "NVML not available (" + path + " not found: no NVIDIA driver installed?)";
    if (err && std::string(err).find("No such file") == std::string::npos) {
      *reason = "NVML not available (cannot load " + path + ": " + err + ")";
    }
    return nullptr;
  }
  std::unique_ptr<Library> lib(new Library(handle));
  Api& a = lib->api_;
  bind(handle, a.init, "nvmlInit_v2", "nvmlInit");
  bind(handle, a.shutdown, "nvmlShutdown");
  bind(handle, a.errorString, "nvmlErrorString");
  bind(handle, a.deviceGetCount, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  bind(handle, a.deviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2",
       "nvmlDeviceGetHandleByIndex");
  bind(handle, a.deviceGetName, "nvmlDeviceGetName");
  bind(handle, a.deviceGetUuid, "nvmlDeviceGetUUID");
  bind(handle, a.deviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates");
  bind(handle, a.deviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
  bind(handle, a.deviceGetMemoryInfoV2, "nvmlDeviceGetMemoryInfo_v2");
  bind(handle, a.deviceGetTemperature, "nvmlDeviceGetTemperature");
  bind(handle, a.deviceGetPowerUsage, "nvmlDeviceGetPowerUsage");
  bind(handle, a.deviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(handle, a.deviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption");
  bind(handle, a.deviceGetClockInfo, "nvmlDeviceGetClockInfo");
  bind(handle, a.deviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo");
  bind(handle, a.deviceGetPcieThroughput, "nvmlDeviceGetPcieThroughput");
  bind(handle, a.deviceGetCurrentClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons",
       "nvmlDeviceGetCurrentClocksThrottleReasons");
  bind(handle, a.deviceGetComputeRunningProcesses, "nvmlDeviceGetComputeRunningProcesses_v3",
       "nvmlDeviceGetComputeRunningProcesses_v2");
  bind(handle, a.eventSetCreate, "nvmlEventSetCreate");
  bind(handle, a.deviceRegisterEvents, "nvmlDeviceRegisterEvents");
  bind(handle, a.eventSetWait, "nvmlEventSetWait_v2", "nvmlEventSetWait");
  bind(handle, a.eventSetFree, "nvmlEventSetFree");
  const char* missing = !a.init                     ? "nvmlInit_v2"
                        : !a.shutdown               ? "nvmlShutdown"
                        : !a.deviceGetCount         ? "nvmlDeviceGetCount_v2"
                        : !a.deviceGetHandleByIndex ? "nvmlDeviceGetHandleByIndex_v2"
                                                    : nullptr;
  if (missing) {
    *reason = "NVML not available (" + path + " has no " + missing + ")";
    return nullptr;
  }
  return lib;
}

Library::~Library() {
  if (handle_) dlclose(handle_);
}

}  // namespace gpufl::nvml
