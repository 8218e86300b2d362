// Seed 03, "What Is Actually Limiting Your Kernel?": a block reduction that reserves 16 KB of
// static shared memory (occupancy limited by shared memory) and the same reduction with 1 KB of
// dynamic shared memory.
#include "cold_l2.hpp"
#include "common.cuh"
#include "gpufl/gpufl.hpp"

__global__ void block_reduce_naive(const float* in, float* out, int n) {
  __shared__ float smem[4096];  // 16 KB — statically reserved
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  smem[tid] = (gid < n) ? in[gid] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = smem[0];
}

__global__ void block_reduce_optimized(const float* in, float* out, int n) {
  extern __shared__ float smem[];  // size comes from the launch call
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  smem[tid] = (gid < n) ? in[gid] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = smem[0];
}

int main() {
  const int N = 1 << 22;
  const int BLOCK = 256;
  const int GRID = (N + BLOCK - 1) / BLOCK;  // 16384 blocks
  auto h_in = randomFloats(N, 3);
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, GRID * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), N * sizeof(float), cudaMemcpyHostToDevice));

  gpufl::InitOptions opts;
  opts.app_name = "occupancy_reduction_demo";
  opts.log_path = "occupancy_reduction";
  opts.enable_kernel_details = true;
  gpufl::init(opts);

  for (int rep = 0; rep < 20; ++rep) {
    coldL2();
    GFL_SCOPE("naive") {
      block_reduce_naive<<<GRID, BLOCK>>>(d_in, d_out, N);
    }
    size_t smem_bytes = BLOCK * sizeof(float);  // 256 × 4 = 1 KB
    coldL2();
    GFL_SCOPE("optimized") {
      block_reduce_optimized<<<GRID, BLOCK, smem_bytes>>>(d_in, d_out, N);
    }
  }
  std::vector<float> partial(GRID);
  CUDA_CHECK(cudaMemcpy(partial.data(), d_out, GRID * sizeof(float), cudaMemcpyDeviceToHost));

  gpufl::shutdown();
  gpufl::generateReport();
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return 0;
}
