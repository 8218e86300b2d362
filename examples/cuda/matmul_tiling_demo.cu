// Seed 01 in CUDA C++: naive matmul (each thread walks a row of A and a column of B in global
// memory) versus shared-memory tiling, n = 2048, 16x16 blocks, 10 launches of each in its own
// scope.
#include "cold_l2.hpp"
#include "common.cuh"
#include "gpufl/gpufl.hpp"

constexpr int kTile = 16;

// Indexed as seed 01's Numba kernel (`row, col = cuda.grid(2)`: row follows x), so consecutive
// threads of a warp read A with a stride of n floats: the uncoalesced access the seed measures.
__global__ void matmul_naive(const float* A, const float* B, float* C, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float tmp = 0.0f;
    for (int k = 0; k < n; ++k) tmp += A[row * n + k] * B[k * n + col];
    C[row * n + col] = tmp;
  }
}

__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float sA[kTile][kTile];
  __shared__ float sB[kTile][kTile];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float tmp = 0.0f;
  for (int t = 0; t < (n + kTile - 1) / kTile; ++t) {
    sA[ty][tx] = (row < n && t * kTile + tx < n) ? A[row * n + t * kTile + tx] : 0.0f;
    sB[ty][tx] = (col < n && t * kTile + ty < n) ? B[(t * kTile + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int j = 0; j < kTile; ++j) tmp += sA[ty][j] * sB[j][tx];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = tmp;
}

int main() {
  const int n = 2048;
  const size_t bytes = size_t(n) * n * sizeof(float);
  auto hA = randomFloats(size_t(n) * n, 1), hB = randomFloats(size_t(n) * n, 2);
  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, bytes));
  CUDA_CHECK(cudaMalloc(&dB, bytes));
  CUDA_CHECK(cudaMalloc(&dC, bytes));

  gpufl::InitOptions opts;
  opts.app_name = "matmul_tiling_demo";
  opts.log_path = "matmul_tiling";
  opts.sampling_auto_start = true;
  opts.system_sample_rate_ms = 100;
  opts.profiling_engine = gpufl::ProfilingEngine::PcSamplingWithSass;
  gpufl::init(opts);

  CUDA_CHECK(cudaMemcpy(dA, hA.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, hB.data(), bytes, cudaMemcpyHostToDevice));
  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);
  coldL2();
  GFL_SCOPE("matrix_mul_naive", "math") {
    for (int i = 0; i < 10; ++i) matmul_naive<<<grid, block>>>(dA, dB, dC, n);
  }
  coldL2();
  GFL_SCOPE("matrix_mul_tiled", "math") {
    for (int i = 0; i < 10; ++i) matmul_tiled<<<grid, block>>>(dA, dB, dC, n);
  }
  std::vector<float> hC(size_t(n) * n);
  CUDA_CHECK(cudaMemcpy(hC.data(), dC, bytes, cudaMemcpyDeviceToHost));

  gpufl::shutdown();
  gpufl::generateReport();
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return 0;
}
