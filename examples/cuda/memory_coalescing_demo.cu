// Seed 03, "Memory Coalescing": the same matmul with threads mapped to rows (uncoalesced) or to
// columns (coalesced). M=512, K=256, N=512. The main() body around the two GFL_SCOPEs is the
// seed's, plus coldL2() calls that do nothing unless asked for (cold_l2.hpp).
#include "cold_l2.hpp"
#include "common.cuh"
#include "gpufl/gpufl.hpp"

__global__ void matmul_row_per_thread(const float* A, const float* B, float* C, int M, int K,
                                      int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;

  for (int col = 0; col < N; col++) {
    float sum = 0.0f;
    for (int i = 0; i < K; i++) sum += A[row * K + i] * B[i * N + col];
    C[row * N + col] = sum;
  }
}

__global__ void matmul_col_per_thread(const float* A, const float* B, float* C, int M, int K,
                                      int N) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;

  for (int row = 0; row < M; row++) {
    float sum = 0.0f;
    for (int i = 0; i < K; i++) sum += A[row * K + i] * B[i * N + col];
    C[row * N + col] = sum;
  }
}

int main() {
  const int M = 512, K = 256, N = 512;
  const int threads = 256;
  const int blocks = (M + threads - 1) / threads;  // M == N here, so one grid serves both kernels
  auto hA = randomFloats(size_t(M) * K, 1), hB = randomFloats(size_t(K) * N, 2);
  float *d_A, *d_B, *d_C;
  CUDA_CHECK(cudaMalloc(&d_A, hA.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_B, hB.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_C, size_t(M) * N * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_B, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

  gpufl::InitOptions opts;
  opts.app_name = "memory_coalescing_demo";
  opts.profiling_engine = gpufl::ProfilingEngine::PcSamplingWithSass;
  gpufl::init(opts);

  coldL2();  // nothing unless GPUFL_EXAMPLE_COLD_L2=1 (cold_l2.hpp)
  GFL_SCOPE("row-per-thread") {
    matmul_row_per_thread<<<blocks, threads>>>(d_A, d_B, d_C, M, K, N);
  }

  coldL2();
  GFL_SCOPE("col-per-thread") {
    matmul_col_per_thread<<<blocks, threads>>>(d_A, d_B, d_C, M, K, N);
  }

  CUDA_CHECK(cudaDeviceSynchronize());
  gpufl::shutdown();
  gpufl::generateReport();

  CUDA_CHECK(cudaFree(d_A));
  CUDA_CHECK(cudaFree(d_B));
  CUDA_CHECK(cudaFree(d_C));
  return 0;
}
