// On a GPU: once warm, gpufl allocates nothing on the application's thread: kernel launches through
// its CUPTI callbacks and nested scopes cost no operator new (DESIGN.md section 3). The binary replaces
// the global operator new (no_alloc_counter.cpp) with one that counts calls made on the test's thread
// while counting is on; a shared library's allocations reach it too (the executable's definition
// interposes).
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

// operator new calls on this thread during `steps` scoped launches.
uint64_t allocationsDuring(int steps, float* x) {
  startCountingNew();
  for (int i = 0; i < steps; ++i) {
    GFL_SCOPE("step") {
      GFL_SCOPE("inner") { addOne<<<4, 256>>>(x, 1024); }
    }
  }
  return stopCountingNew();
}

TEST(NoAllocation, LaunchesAndScopesAfterWarmUp) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no GPU";
  float* x = nullptr;
  ASSERT_EQ(cudaMalloc(&x, 1024 * sizeof(float)), cudaSuccess);
  allocationsDuring(1000, x);  // CUDA's own warm-up, untraced
  const uint64_t plain = allocationsDuring(20000, x);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  gpufl::InitOptions opts;
  opts.app_name = "no_alloc_test";
  opts.log_path = "no_alloc_test";
  opts.system_sample_rate_ms = 10;
  startCountingNew();
  ASSERT_TRUE(gpufl::init(opts));
  // init allocates inside libgpufl.so: if the counter missed that, the check below could not fail.
  EXPECT_GT(stopCountingNew(), 0u) << "the replaced operator new does not see libgpufl.so's calls";
  allocationsDuring(2000, x);  // gpufl's warm-up: thread buffer, interned names, first buffers
  const uint64_t traced = allocationsDuring(20000, x);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  gpufl::shutdown();
  cudaFree(x);
  // Whatever CUDA itself allocates per launch is in both counts; gpufl must add nothing.
  EXPECT_LE(traced, plain) << "operator new calls in 20000 launches: " << traced << " traced vs "
                           << plain << " plain";
  std::printf("operator new calls in 20000 scoped launches: plain %llu, traced %llu\n",
              static_cast<unsigned long long>(plain), static_cast<unsigned long long>(traced));
}

}  // namespace
