// On a GPU: once warm, gpufl allocates nothing on the application's thread: kernel launches through
// its CUPTI callbacks and nested scopes cost no heap allocation (DESIGN.md section 3). Allocations on
// the test's thread are counted by a preloaded malloc (no_alloc_counter.hpp; CTest sets LD_PRELOAD).
// CUDA's own allocations per launch, if any, are in both counts.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>

#include "gpufl/gpufl.hpp"

#include "no_alloc_counter.hpp"

namespace {

__global__ void addOne(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

const AllocationCounter kCounter;

// Heap allocations on this thread during `steps` scoped launches.
uint64_t allocationsDuring(int steps, float* x) {
  kCounter.start();
  for (int i = 0; i < steps; ++i) {
    GFL_SCOPE("step") {
      GFL_SCOPE("inner") { addOne<<<4, 256>>>(x, 1024); }
    }
  }
  return kCounter.stop();
}

TEST(NoAllocation, LaunchesAndScopesAfterWarmUp) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no GPU";
  ASSERT_TRUE(kCounter.loaded())
      << "the allocation counter is not loaded: run through ctest, or with "
         "LD_PRELOAD=<build>/tests/gpu/libgpufl_alloc_counter_preload.so";
  float* x = nullptr;
  ASSERT_EQ(cudaMalloc(&x, 1024 * sizeof(float)), cudaSuccess);
  allocationsDuring(1000, x);  // CUDA's own warm-up, untraced
  const uint64_t plain = allocationsDuring(20000, x);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  gpufl::InitOptions opts;
  opts.app_name = "no_alloc_test";
  opts.log_path = "no_alloc_test";
  opts.system_sample_rate_ms = 10;
  kCounter.start();
  ASSERT_TRUE(gpufl::init(opts));
  // init allocates inside libgpufl.so: if the counter missed that, the check below could not fail.
  EXPECT_GT(kCounter.stop(), 0u) << "the counter does not see libgpufl.so's allocations";
  allocationsDuring(2000, x);  // gpufl's warm-up: thread buffer, interned names, first buffers
  const uint64_t traced = allocationsDuring(20000, x);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  gpufl::shutdown();
  cudaFree(x);
  // Whatever CUDA itself allocates per launch is in both counts; gpufl must add nothing. The slack
  // (1 per 100 launches) absorbs an occasional growth inside CUDA; one allocation per launch or
  // scope by gpufl would add 20,000 or more.
  EXPECT_LE(traced, plain + 200) << "heap allocations in 20000 launches: " << traced
                                 << " traced vs " << plain << " plain";
  std::printf("heap allocations in 20000 scoped launches: plain %llu, traced %llu\n",
              static_cast<unsigned long long>(plain), static_cast<unsigned long long>(traced));
}

}  // namespace
