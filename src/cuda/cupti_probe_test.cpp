// What CUPTI does on a machine with libcupti but no GPU or driver (docs/architecture.md), and that
// GPU Flight says so in the user's words. On a machine with a driver the failure half is skipped
// (the GPU tests cover that case).
//
// libcupti is loaded through gpufl's wrapper (cuda/cupti_api.hpp); where it is not found the tests
// skip.
#include <cupti.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "cuda/cupti_api.hpp"
#include "cuda/cupti_status.hpp"
#include "cuda/device_props.hpp"

namespace gpufl::cuda {
namespace {

bool driverInstalled() {
  void* h = dlopen(kDriverLibraryName, RTLD_NOW | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

TEST(CuptiProbe, GetVersionWorksWithoutAGpu) {
  if (std::string why; !cuptiLibrary().has(CuptiFeature::Tracing, &why)) GTEST_SKIP() << why;
  uint32_t version = 0;
  CUptiResult r = cupti::cuptiGetVersion(&version);
  if (r != CUPTI_SUCCESS)
    GTEST_SKIP() << "libcupti loaded but cuptiGetVersion failed (" << r << ")";
  EXPECT_GT(version, 0u);
}

TEST(CuptiProbe, EnablingActivityFailsAndReadsAsNoGpu) {
  uint32_t version = 0;
  if (cupti::cuptiGetVersion(&version) != CUPTI_SUCCESS) GTEST_SKIP() << "libcupti unusable";
  if (driverInstalled()) {
    CUptiResult r = cupti::cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r == CUPTI_SUCCESS) cupti::cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    GTEST_SKIP() << "an NVIDIA driver is installed; enabling activity gave: "
                 << CuptiCall{"cuptiActivityEnable", r}.describe();
  }

  CUptiResult r = cupti::cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r == CUPTI_SUCCESS) cupti::cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  ASSERT_NE(r, CUPTI_SUCCESS);
  EXPECT_EQ(r, CUPTI_ERROR_UNKNOWN);  // what CUDA 13.0's CUPTI returns without a driver

  // The note the tracer writes for this failure must tell the user there is no GPU/driver, not just
  // a code.
  std::string text = CuptiCall{"cuptiActivityEnable", r}.describe();
  EXPECT_NE(text.find("no GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("driver"), std::string::npos) << text;

  // And the device list says why it is empty.
  DevicesResult devices = readDevices();
  EXPECT_FALSE(devices.ok);
  EXPECT_EQ(devices.reason, "no NVIDIA driver (libcuda.so.1 not found)");
}

}  // namespace
}  // namespace gpufl::cuda
