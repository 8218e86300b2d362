#include "cuda/device_props.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>

namespace gpufl::cuda {
namespace {

// A fake driver with one H200-like device (the driver attributes of the test machine's H200).
struct FakeDriver {
  CUresult init_ret = CUDA_SUCCESS;
  int count = 1;
  std::map<int, int> attrs = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 233472},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448},
      {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 62914560},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 6016},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 3201000},
  };
};
FakeDriver g;

CUresult fakeInit(unsigned int) {
  return g.init_ret;
}
CUresult fakeVersion(int* v) {
  return *v = 13000, CUDA_SUCCESS;
}
CUresult fakeCount(int* n) {
  return *n = g.count, CUDA_SUCCESS;
}
CUresult fakeGet(CUdevice* d, int ordinal) {
  return *d = ordinal, CUDA_SUCCESS;
}
CUresult fakeName(char* buf, int len, CUdevice) {
  std::strncpy(buf, "NVIDIA H200", static_cast<size_t>(len));
  return CUDA_SUCCESS;
}
CUresult fakeUuid(CUuuid* u, CUdevice) {
  for (int i = 0; i < 16; ++i) u->bytes[i] = static_cast<char>(0x10 + i);
  return CUDA_SUCCESS;
}
CUresult fakeAttr(int* v, CUdevice_attribute a, CUdevice) {
  auto it = g.attrs.find(a);
  if (it == g.attrs.end()) return CUDA_ERROR_INVALID_VALUE;
  *v = it->second;
  return CUDA_SUCCESS;
}
CUresult fakeTotalMem(size_t* bytes, CUdevice) {
  return *bytes = 150'754'820'096ull, CUDA_SUCCESS;
}
CUresult fakeErrorName(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
CUresult fakeErrorString(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "unknown error";
  return CUDA_SUCCESS;
}

DriverApi fakeApi() {
  DriverApi a;
  a.init = fakeInit;
  a.driverGetVersion = fakeVersion;
  a.deviceGetCount = fakeCount;
  a.deviceGet = fakeGet;
  a.deviceGetName = fakeName;
  a.deviceGetUuid = fakeUuid;
  a.deviceGetAttribute = fakeAttr;
  a.deviceTotalMem = fakeTotalMem;
  a.getErrorName = fakeErrorName;
  a.getErrorString = fakeErrorString;
  return a;
}

class DevicePropsTest : public ::testing::Test {
 protected:
  void SetUp() override { g = FakeDriver{}; }
};

TEST_F(DevicePropsTest, ReadsEveryField) {
  g.count = 2;
  DevicesResult r = readDevices(fakeApi());
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.reason, "");
  EXPECT_EQ(r.driver_version, 13000);
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.devices.size(), 2u);
  const DeviceInfo& d = r.devices[1];
  EXPECT_EQ(d.id, 1u);
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.uuid, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.warp_size, 32);
  EXPECT_EQ(d.max_threads_per_sm, 2048);
  EXPECT_EQ(d.max_threads_per_block, 1024);
  EXPECT_EQ(d.max_blocks_per_sm, 32);
  EXPECT_EQ(d.regs_per_sm, 65536);
  EXPECT_EQ(d.regs_per_block, 65536);
  EXPECT_EQ(d.smem_per_sm_bytes, 233472);
  EXPECT_EQ(d.smem_per_block_bytes, 49152);
  EXPECT_EQ(d.smem_per_block_optin_bytes, 232448);
  EXPECT_EQ(d.smem_reserved_per_block_bytes, 1024);
  EXPECT_EQ(d.l2_bytes, 62914560);
  EXPECT_EQ(d.global_mem_bytes, 150'754'820'096ll);
  EXPECT_EQ(d.mem_bus_bits, 6016);
  EXPECT_EQ(d.clock_khz, 1980000);
  EXPECT_EQ(d.mem_clock_khz, 3201000);
}

TEST_F(DevicePropsTest, UnreadableAttributesAreWarnings) {
  g.attrs.erase(
      CU_DEVICE_ATTRIBUTE_CLOCK_RATE);  // e.g. a future driver that drops the deprecated attribute
  g.attrs.erase(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  DevicesResult r = readDevices(fakeApi());
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.devices[0].clock_khz, 0);
  EXPECT_EQ(r.devices[0].sm_count, 132);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "device 0: unreadable l2, clock_khz");
}

TEST_F(DevicePropsTest, InitFailureCarriesDriverText) {
  g.init_ret = CUDA_ERROR_NO_DEVICE;
  DevicesResult r = readDevices(fakeApi());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason,
            "CUDA driver initialisation failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
            "detected)");
  EXPECT_TRUE(r.devices.empty());
}

TEST_F(DevicePropsTest, ZeroDevices) {
  g.count = 0;
  DevicesResult r = readDevices(fakeApi());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "no CUDA device found");
}

TEST_F(DevicePropsTest, ErrorTextWithoutDriverNames) {
  DriverApi a;
  EXPECT_EQ(driverErrorText(a, CUDA_ERROR_NO_DEVICE), "CUDA error 100");
}

TEST(DeviceProps, MissingDriverLibrary) {
  std::string reason;
  EXPECT_EQ(DriverLibrary::open(&reason, "libcuda-gpufl-test-missing.so.1"), nullptr);
  EXPECT_EQ(reason, "no NVIDIA driver (libcuda-gpufl-test-missing.so.1 not found)");
}

TEST(DeviceProps, RealDriverOrNoDriverReason) {
  if (void* h = dlopen(kDriverLibraryName, RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    DevicesResult r = readDevices();
    if (!r.ok) GTEST_SKIP() << "driver installed but no device readable: " << r.reason;
    for (const DeviceInfo& d : r.devices) {
      std::printf(
          "device %u: %s %s cc %d.%d, %d SMs, smem/SM %lld, optin %lld, reserved %lld, L2 %lld, "
          "bus %d\n",
          d.id, d.name.c_str(), d.uuid.c_str(), d.cc_major, d.cc_minor, d.sm_count,
          static_cast<long long>(d.smem_per_sm_bytes),
          static_cast<long long>(d.smem_per_block_optin_bytes),
          static_cast<long long>(d.smem_reserved_per_block_bytes),
          static_cast<long long>(d.l2_bytes), d.mem_bus_bits);
      EXPECT_GT(d.sm_count, 0);
      EXPECT_EQ(d.warp_size, 32);
      EXPECT_GT(d.max_blocks_per_sm, 0);
      EXPECT_GT(d.global_mem_bytes, 0);
      EXPECT_EQ(d.uuid.rfind("GPU-", 0), 0u);
      if (d.cc_major >= 8) {
        EXPECT_GT(d.smem_reserved_per_block_bytes, 0);
      }
    }
    for (const std::string& w : r.warnings) std::printf("warning: %s\n", w.c_str());
    return;
  }
  DevicesResult r = readDevices();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "no NVIDIA driver (libcuda.so.1 not found)");
  EXPECT_TRUE(r.devices.empty());
}

}  // namespace
}  // namespace gpufl::cuda
