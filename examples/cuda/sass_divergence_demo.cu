// Seed 03, "Detecting Thread Divergence": five kernels with different divergence patterns, n =
// 2^20, each in its own scope, under the SassMetrics engine.
#include "cold_l2.hpp"
#include "common.cuh"
#include "gpufl/gpufl.hpp"

__global__ void uniformWork(float* out, const float* in, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float val = in[idx];
    for (int i = 0; i < 512; ++i) val = val * 1.01f + 0.001f;
    out[idx] = val;
  }
}

__global__ void branchByWarpLane(float* out, const float* in, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float val = in[idx];
    if (threadIdx.x % 2 == 0) {
      for (int i = 0; i < 512; ++i) val = val * 1.01f + 0.001f;
    } else {
      for (int i = 0; i < 512; ++i) val = val + 0.001f * (float)i;
    }
    out[idx] = val;
  }
}

__global__ void branchByWarpQuad(float* out, const float* in, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float val = in[idx];
    if (threadIdx.x % 4 == 0) {
      for (int i = 0; i < 2048; ++i) val = val * 1.001f + 0.0001f;
    }
    out[idx] = val;
  }
}

__global__ void earlyExit(float* out, const float* in, float threshold, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float val = in[idx];
    if (val < threshold) {
      out[idx] = val;
      return;
    }
    for (int i = 0; i < 1024; ++i) val = val * 1.01f - 0.005f;
    out[idx] = val;
  }
}

__global__ void indirectBranch(float* out, const float* in, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float val = in[idx];
    int category = (int)(val * 4.0f) % 4;
    switch (category) {
      case 0:
        for (int i = 0; i < 256; ++i) val = val * 1.01f;
        break;
      case 1:
        for (int i = 0; i < 256; ++i) val = val + 0.01f;
        break;
      case 2:
        for (int i = 0; i < 256; ++i) val = val - 0.005f;
        break;
      case 3:
        for (int i = 0; i < 256; ++i) val = val * 0.99f;
        break;
    }
    out[idx] = val;
  }
}

int main() {
  const int n = 1 << 20, block = 256, grid = (n + block - 1) / block;
  auto h_in = randomFloats(n, 7);
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  gpufl::InitOptions opts;
  opts.app_name = "sass_divergence_demo";
  opts.log_path = "sass_divergence";
  opts.enable_kernel_details = true;
  opts.sampling_auto_start = true;
  opts.profiling_engine = gpufl::ProfilingEngine::SassMetrics;
  gpufl::init(opts);

  coldL2();
  GFL_SCOPE("uniformWork") {
    uniformWork<<<grid, block>>>(d_out, d_in, n);
  }
  coldL2();
  GFL_SCOPE("branchByWarpLane") {
    branchByWarpLane<<<grid, block>>>(d_out, d_in, n);
  }
  coldL2();
  GFL_SCOPE("branchByWarpQuad") {
    branchByWarpQuad<<<grid, block>>>(d_out, d_in, n);
  }
  coldL2();
  GFL_SCOPE("earlyExit") {
    earlyExit<<<grid, block>>>(d_out, d_in, 0.5f, n);
  }
  coldL2();
  GFL_SCOPE("indirectBranch") {
    indirectBranch<<<grid, block>>>(d_out, d_in, n);
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  gpufl::shutdown();
  gpufl::generateReport();
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return 0;
}
