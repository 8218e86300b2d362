#include "cuda/device_props.hpp"

#include <cstdio>

namespace gpufl::cuda {

std::string formatUuid(const CUuuid& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char out[64];
  std::snprintf(out, sizeof out,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return out;
}

DevicesResult readDevices() {
  DevicesResult result;
  const DriverApi* api = DriverLibrary::process(&result.reason);
  if (api == nullptr) return result;
  return readDevices(*api);
}

DevicesResult readDevices(const DriverApi& api) {
  DevicesResult result;
  if (!api.init || !api.deviceGetCount || !api.deviceGet || !api.deviceGetAttribute) {
    result.reason = "CUDA driver API incomplete";
    return result;
  }
  if (CUresult r = api.init(0); r != CUDA_SUCCESS) {
    result.reason = "CUDA driver initialisation failed: " + driverErrorText(api, r);
    return result;
  }
  if (api.driverGetVersion) api.driverGetVersion(&result.driver_version);
  int count = 0;
  if (CUresult r = api.deviceGetCount(&count); r != CUDA_SUCCESS) {
    result.reason = "cuDeviceGetCount failed: " + driverErrorText(api, r);
    return result;
  }
  if (count <= 0) {
    result.reason = "no CUDA device found";
    return result;
  }

  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice dev = 0;
    if (CUresult r = api.deviceGet(&dev, ordinal); r != CUDA_SUCCESS) {
      result.warnings.push_back("device " + std::to_string(ordinal) + ": " +
                                driverErrorText(api, r));
      continue;
    }
    DeviceInfo d;
    d.id = static_cast<uint32_t>(ordinal);
    std::string failed;  // attributes that could not be read
    auto attr = [&](CUdevice_attribute a, const char* label) {
      int v = 0;
      if (api.deviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) {
        failed += failed.empty() ? label : std::string(", ") + label;
        return 0;
      }
      return v;
    };
    char name[256] = {};
    if (api.deviceGetName && api.deviceGetName(name, sizeof name - 1, dev) == CUDA_SUCCESS)
      d.name = name;
    CUuuid uuid{};
    if (api.deviceGetUuid && api.deviceGetUuid(&uuid, dev) == CUDA_SUCCESS)
      d.uuid = formatUuid(uuid);
    d.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cc_major");
    d.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cc_minor");
    d.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "sm_count");
    d.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp_size");
    d.max_threads_per_sm =
        attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "max_threads_per_sm");
    d.max_threads_per_block =
        attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max_threads_per_block");
    d.max_blocks_per_sm =
        attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, "max_blocks_per_sm");
    d.regs_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "regs_per_sm");
    d.regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "regs_per_block");
    d.smem_per_sm_bytes =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "smem_per_sm");
    d.smem_per_block_bytes =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "smem_per_block");
    d.smem_per_block_optin_bytes =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "smem_per_block_optin");
    d.smem_reserved_per_block_bytes =
        attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, "smem_reserved");
    d.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "l2");
    d.mem_bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "mem_bus_bits");
    d.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clock_khz");
    d.mem_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "mem_clock_khz");
    size_t total = 0;
    if (api.deviceTotalMem && api.deviceTotalMem(&total, dev) == CUDA_SUCCESS) {
      d.global_mem_bytes = static_cast<int64_t>(total);
    } else {
      failed += failed.empty() ? "global_mem" : ", global_mem";
    }
    if (!failed.empty())
      result.warnings.push_back("device " + std::to_string(ordinal) + ": unreadable " + failed);
    result.devices.push_back(std::move(d));
  }
  if (result.devices.empty()) {
    result.reason = "no CUDA device could be opened";
    return result;
  }
  result.ok = true;
  return result;
}

}  // namespace gpufl::cuda
