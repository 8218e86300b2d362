// CUPTI's generated_cuda_meta.h names the driver's version-1 types, which cuda.h declares only for
// its own implementation: declared here too, first, for the layout checks below.
#define __CUDA_API_VERSION_INTERNAL 1
#include "cuda/api_params.hpp"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <gtest/gtest.h>

#if __has_include(<generated_cuda_runtime_api_meta.h>) && __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#include <generated_cuda_meta.h>
#include <generated_cuda_runtime_api_meta.h>
#define GFL_HAVE_META 1
#endif

namespace gpufl::cuda {
namespace {

constexpr auto kRt = CUPTI_CB_DOMAIN_RUNTIME_API;
constexpr auto kDrv = CUPTI_CB_DOMAIN_DRIVER_API;

TEST(ApiParams, RolesOfTheCallsTheFlightRecorderWatches) {
  EXPECT_EQ(apiRole(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), ApiRole::KernelLaunch);
  EXPECT_EQ(apiRole(kDrv, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch), ApiRole::GraphLaunch);
  EXPECT_EQ(apiRole(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020), ApiRole::Sync);
  EXPECT_EQ(apiRole(kDrv, CUPTI_DRIVER_TRACE_CBID_cuMemCreate), ApiRole::Alloc);
  EXPECT_EQ(apiRole(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020), ApiRole::Free);
  EXPECT_EQ(apiRole(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020), ApiRole::StreamWait);
  EXPECT_EQ(apiRole(kDrv, CUPTI_DRIVER_TRACE_CBID_cuFuncSetAttribute), ApiRole::FuncAttribute);
  EXPECT_EQ(apiRole(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020), ApiRole::Other);
  EXPECT_TRUE(synchronizesContext(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020));
  EXPECT_FALSE(synchronizesContext(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020));
}

TEST(ApiParams, ErrorsThatLeaveTheContextUnusable) {
  EXPECT_TRUE(isStickyError(700));
  EXPECT_TRUE(isStickyError(717));
  EXPECT_TRUE(isStickyError(710));
  EXPECT_FALSE(isStickyError(0));
  EXPECT_FALSE(isStickyError(2));    // out of memory: the context goes on
  EXPECT_FALSE(isStickyError(701));  // too many resources for one launch
  EXPECT_TRUE(isOutOfMemory(2));
  EXPECT_STREQ(errorName(700), "cudaErrorIllegalAddress");
  EXPECT_EQ(errorName(12345), nullptr);
}

TEST(ApiParams, ReadsStreamsSizesAndCarveoutsFromParameterStructs) {
  struct {
    const void* func = nullptr;
    unsigned dims[6] = {};
    void** args = nullptr;
    size_t smem = 0;
    void* stream = reinterpret_cast<void*>(0x5000);
  } launch;
  EXPECT_EQ(streamOf(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &launch), 0x5000u);
  struct {
    void** ptr = nullptr;
    size_t size = 1ull << 33;
  } malloc_params;
  EXPECT_EQ(allocationBytes(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &malloc_params),
            1ull << 33);
  EXPECT_EQ(allocationBytes(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &malloc_params), 0u);
  struct {
    const void* func = reinterpret_cast<const void*>(0x77);
    int attr = 9;
    int value = 25;
  } attr;
  auto request = carveoutRequest(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaFuncSetAttribute_v9000, &attr);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->percent, 25);
  EXPECT_EQ(request->function, reinterpret_cast<const void*>(0x77));
  attr.attr = 8;  // cudaFuncAttributeMaxDynamicSharedMemorySize: not a carveout
  EXPECT_FALSE(carveoutRequest(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaFuncSetAttribute_v9000, &attr));
  EXPECT_EQ(streamOf(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, nullptr), 0u);
}

#ifdef GFL_HAVE_META
// The mirrors in api_params.cpp read the same offsets as CUPTI's own structs.
TEST(ApiParams, MirrorsMatchCuptisParameterStructs) {
  cudaLaunchKernel_v7000_params launch{};
  launch.stream = reinterpret_cast<cudaStream_t>(0x1234);
  EXPECT_EQ(streamOf(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &launch), 0x1234u);
  cudaLaunchConfig_t config{};
  config.stream = reinterpret_cast<cudaStream_t>(0x2345);
  cudaLaunchKernelExC_v11060_params ex{};
  ex.config = &config;
  EXPECT_EQ(streamOf(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &ex), 0x2345u);
  cuLaunchKernel_params drv{};
  drv.hStream = reinterpret_cast<CUstream>(0x3456);
  EXPECT_EQ(streamOf(kDrv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &drv), 0x3456u);
  cudaMallocAsync_v11020_params async{};
  async.size = 99;
  async.hStream = reinterpret_cast<cudaStream_t>(0x4567);
  EXPECT_EQ(allocationBytes(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, &async), 99u);
  EXPECT_EQ(streamOf(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, &async), 0x4567u);
  cudaMallocPitch_v3020_params pitch{};
  pitch.width = 10;
  pitch.height = 7;
  EXPECT_EQ(allocationBytes(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020, &pitch), 70u);
  cuMemCreate_params create{};
  create.size = 1 << 21;
  EXPECT_EQ(allocationBytes(kDrv, CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &create), 1u << 21);
  cudaFuncSetAttribute_v9000_params set{};
  set.attr = cudaFuncAttributePreferredSharedMemoryCarveout;
  set.value = 25;
  ASSERT_TRUE(carveoutRequest(kRt, CUPTI_RUNTIME_TRACE_CBID_cudaFuncSetAttribute_v9000, &set));
  cuFuncSetAttribute_params dset{};
  dset.attrib = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
  dset.value = 50;
  EXPECT_EQ(carveoutRequest(kDrv, CUPTI_DRIVER_TRACE_CBID_cuFuncSetAttribute, &dset)->percent, 50);
  cuGraphLaunch_params graph{};
  graph.hStream = reinterpret_cast<CUstream>(0x5678);
  EXPECT_EQ(streamOf(kDrv, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &graph), 0x5678u);
}
#endif

}  // namespace
}  // namespace gpufl::cuda
