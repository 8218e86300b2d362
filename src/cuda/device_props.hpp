// Static properties of every CUDA device (session_start.devices), read through the driver API
// loaded at run time.
//
// readDevices() calls cuInit(0), which is harmless when the program has already initialised CUDA.
// It must not be called from inside cuInit itself (the CUDA_INJECTION64_PATH entry runs there):
// read devices later, e.g. on the first context-created callback.
#pragma once

#include <string>
#include <vector>

#include "core/events.hpp"
#include "cuda/driver_api.hpp"

namespace gpufl::cuda {

struct DevicesResult {
  bool ok = false;
  std::string reason;      // why no device could be read; empty when ok
  int driver_version = 0;  // e.g. 13000 for CUDA 13.0; 0 when unknown
  std::vector<DeviceInfo> devices;
  std::vector<std::string>
      warnings;  // attributes that could not be read (left 0), one line per device
};

// Loads libcuda.so.1 and reads every device. On a machine without a driver: ok == false and reason
// "no NVIDIA driver (libcuda.so.1 not found)".
DevicesResult readDevices();
// The same through an already filled table (tests inject fakes).
DevicesResult readDevices(const DriverApi& api);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form nvidia-smi and NVML print.
std::string formatUuid(const CUuuid& uuid);

}  // namespace gpufl::cuda
