// A launch-bound program for overhead measurements: N tiny kernels (default 200000) back to back,
// no gpufl calls, so it can run plain, under a bare-CUPTI floor library, and under `gpufl trace`.
// Prints the wall time of the launch loop (after a warm-up) in seconds.
#include <chrono>
#include <cstdlib>

#include "common.cuh"

__global__ void tiny(float* x) {
  x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 200000;
  float* d;
  CUDA_CHECK(cudaMalloc(&d, 32 * sizeof(float)));
  CUDA_CHECK(cudaMemset(d, 0, 32 * sizeof(float)));
  for (int i = 0; i < 1000; ++i) tiny<<<1, 32>>>(d);  // warm-up: module load, first-launch costs
  CUDA_CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) tiny<<<1, 32>>>(d);
  CUDA_CHECK(cudaDeviceSynchronize());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("tiny_kernels: %ld launches in %.4f s (%.3f us/launch)\n", n, s, 1e6 * s / n);
  CUDA_CHECK(cudaFree(d));
  return 0;
}
