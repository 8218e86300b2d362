#include <cstring>

#include "cold_l2.hpp"
#include "common.cuh"

namespace {

__global__ void coldL2Read(const float4* buffer, size_t count, float4* never_written) {
  float sum = 0.0f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 v = buffer[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == -1.0f)
    *never_written = make_float4(sum, sum, sum, sum);  // the buffer is zeros: keeps the loads
}

}  // namespace

void coldL2() {
  static const bool wanted = [] {
    const char* v = std::getenv("GPUFL_EXAMPLE_COLD_L2");
    return v && std::strcmp(v, "1") == 0;
  }();
  if (!wanted) return;
  static float4* buffer = nullptr;
  static size_t count = 0;
  static int sms = 0;
  if (!buffer) {
    int device = 0, l2_bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    count = 3 * size_t(l2_bytes) / sizeof(float4);
    CUDA_CHECK(cudaMalloc(&buffer, (count + 1) * sizeof(float4)));
    CUDA_CHECK(cudaMemset(buffer, 0, (count + 1) * sizeof(float4)));
  }
  coldL2Read<<<sms * 4, 256>>>(buffer, count, buffer + count);
  CUDA_CHECK(cudaGetLastError());
}
