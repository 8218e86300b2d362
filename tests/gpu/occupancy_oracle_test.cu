// On a GPU: our occupancy calculator against the CUDA occupancy API (the oracle) for kernels limited by each
// resource, at several block sizes, dynamic shared memory sizes and carveouts.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "core/arch_limits.hpp"
#include "core/occupancy.hpp"

namespace {

__global__ void plainKernel(float* x) { x[threadIdx.x] *= 2.0f; }

__global__ void staticSmem16k(float* x) {
  __shared__ float smem[4096];  // 16 KB
  smem[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x];
}

__global__ void dynamicSmem(float* x) {
  extern __shared__ float smem[];
  smem[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x];
}

// Many live values: forces a high register count (checked via cudaFuncGetAttributes, not assumed).
__global__ void __launch_bounds__(128) registerHeavy(float* x, int n) {
  float acc[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[i] = x[(threadIdx.x + i) % n];
  for (int k = 0; k < n; ++k) {
#pragma unroll
    for (int i = 0; i < 48; ++i) acc[i] = acc[i] * acc[(i + 7) % 48] + 1.0f;
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 48; ++i) s += acc[i];
  x[threadIdx.x] = s;
}

gpufl::DeviceInfo deviceInfo(int dev) {
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, dev);
  gpufl::DeviceInfo d;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.smem_per_sm_bytes = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
  d.smem_per_block_bytes = static_cast<int64_t>(p.sharedMemPerBlock);
  d.smem_per_block_optin_bytes = static_cast<int64_t>(p.sharedMemPerBlockOptin);
  d.smem_reserved_per_block_bytes = static_cast<int64_t>(p.reservedSharedMemPerBlock);
  return d;
}

struct Case {
  const char* name;
  const void* func;
  int threads;
  size_t dyn_smem;
  int carveout;  // -1: leave the function's default
};

TEST(OccupancyOracle, MatchesCudaOccupancyApi) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no GPU";
  gpufl::ArchLimits limits = gpufl::limitsFromDevice(deviceInfo(0));
  const Case cases[] = {
      {"plain", (const void*)plainKernel, 32, 0, -1},
      {"plain", (const void*)plainKernel, 96, 0, -1},
      {"plain", (const void*)plainKernel, 256, 0, -1},
      {"plain", (const void*)plainKernel, 1024, 0, -1},
      {"smem16k", (const void*)staticSmem16k, 256, 0, -1},
      {"smem16k", (const void*)staticSmem16k, 128, 0, -1},
      {"smem16k", (const void*)staticSmem16k, 256, 0, 25},
      {"dyn1k", (const void*)dynamicSmem, 256, 1024, -1},
      {"dyn48k", (const void*)dynamicSmem, 256, 48 * 1024, -1},
      {"dyn20k", (const void*)dynamicSmem, 128, 20 * 1024, 50},
      {"dyn20k", (const void*)dynamicSmem, 128, 20 * 1024, 0},
      {"regs", (const void*)registerHeavy, 128, 0, -1},
      {"regs", (const void*)registerHeavy, 64, 0, -1},
  };
  int compared = 0;
  for (const Case& c : cases) {
    if (c.dyn_smem > 48 * 1024)
      cudaFuncSetAttribute(c.func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(c.dyn_smem));
    cudaFuncSetAttribute(c.func, cudaFuncAttributePreferredSharedMemoryCarveout,
                         c.carveout < 0 ? cudaSharedmemCarveoutDefault : c.carveout);
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, c.func), cudaSuccess);
    int oracle = -1;
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&oracle, c.func, c.threads, c.dyn_smem), cudaSuccess);
    gpufl::Occupancy ours = gpufl::computeOccupancy(limits, c.threads, attr.numRegs,
                                                    static_cast<int64_t>(attr.sharedSizeBytes),
                                                    static_cast<int64_t>(c.dyn_smem), c.carveout);
    std::printf("%-8s threads %4d regs %3d static %6zu dyn %6zu carveout %3d: oracle %2d ours %2d (%s)\n", c.name,
                c.threads, attr.numRegs, attr.sharedSizeBytes, c.dyn_smem, c.carveout, oracle,
                ours.max_active_blocks, gpufl::limitingResourceName(ours.limiting));
    EXPECT_EQ(ours.max_active_blocks, oracle) << c.name << " threads=" << c.threads << " carveout=" << c.carveout;
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(sizeof(cases) / sizeof(cases[0])));
}

}  // namespace
