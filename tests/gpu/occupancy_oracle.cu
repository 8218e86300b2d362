// GPU oracle for the occupancy calculator: sweeps block sizes, dynamic shared memory and carveout
// preferences over kernels of different register and static shared-memory use, and compares
// gpufl::computeOccupancy (limits from the device's own properties, and from the built-in table)
// with cudaOccupancyMaxActiveBlocksPerMultiprocessor. Prints every mismatch and a summary; exit 0
// when all agree.
//
//   nvcc -std=c++20 -O2 -arch=native -Isrc tests/gpu/occupancy_oracle.cu src/core/occupancy.cpp \
//        src/core/arch_limits.cpp src/core/events.cpp -o occupancy_oracle && ./occupancy_oracle
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "core/arch_limits.hpp"
#include "core/occupancy.hpp"

#define CHECK(x)                                                    \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(3);                                                 \
    }                                                               \
  } while (0)

// N live accumulators: register use grows with N.
template <int N>
__global__ void regsKernel(float* out, const float* in, int n) {
  float acc[N];
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = in[(threadIdx.x * N + i) % n];
  for (int it = 0; it < n; ++it) {
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = acc[i] * acc[(i + 1) % N] + in[(it + i) % n];
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) s += acc[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int BYTES>
__global__ void smemKernel(float* out, int n) {
  __shared__ float buf[BYTES / 4];
  extern __shared__ float dyn[];
  buf[threadIdx.x % (BYTES / 4)] = threadIdx.x;
  dyn[0] = n;
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x + 1) % (BYTES / 4)] + dyn[0];
}

struct Kernel {
  const char* name;
  const void* fn;
};

gpufl::DeviceInfo deviceInfo(int dev) {
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, dev));
  gpufl::DeviceInfo d;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.smem_per_sm_bytes = p.sharedMemPerMultiprocessor;
  d.smem_per_block_bytes = p.sharedMemPerBlock;
  d.smem_per_block_optin_bytes = p.sharedMemPerBlockOptin;
  d.smem_reserved_per_block_bytes = p.reservedSharedMemPerBlock;
  return d;
}

int main() {
  gpufl::DeviceInfo dev = deviceInfo(0);
  gpufl::ArchLimits from_device = gpufl::limitsFromDevice(dev);
  auto table = gpufl::archLimits(dev.cc_major, dev.cc_minor);
  std::printf(
      "%s sm_%d%d: threads/SM %d blocks/SM %d regs/SM %d smem/SM %lld optin %lld reserve %lld\n",
      dev.name.c_str(), dev.cc_major, dev.cc_minor, dev.max_threads_per_sm, dev.max_blocks_per_sm,
      dev.regs_per_sm, (long long)dev.smem_per_sm_bytes, (long long)dev.smem_per_block_optin_bytes,
      (long long)dev.smem_reserved_per_block_bytes);
  if (!table) std::printf("note: sm_%d%d is not in the table\n", dev.cc_major, dev.cc_minor);

  std::vector<Kernel> kernels = {
      {"regs1", (const void*)regsKernel<1>},       {"regs8", (const void*)regsKernel<8>},
      {"regs20", (const void*)regsKernel<20>},     {"regs40", (const void*)regsKernel<40>},
      {"regs60", (const void*)regsKernel<60>},     {"regs90", (const void*)regsKernel<90>},
      {"regs120", (const void*)regsKernel<120>},   {"regs200", (const void*)regsKernel<200>},
      {"smem1k", (const void*)smemKernel<1024>},   {"smem10000", (const void*)smemKernel<10000>},
      {"smem16k", (const void*)smemKernel<16384>}, {"smem33k", (const void*)smemKernel<33000>},
      {"smem48k", (const void*)smemKernel<49152>},
  };
  const int threads[] = {1,   32,  33,  64,  96,  100, 128, 160, 192, 224, 256,
                         288, 320, 384, 448, 512, 640, 768, 800, 896, 992, 1024};
  const long long dyns[] = {0,     1,     129,    1000,   4096,   12345,  16384, 40000,
                            49152, 65536, 100000, 101376, 150000, 200000, 232448};
  const int carveouts[] = {-1, 0, 5, 10, 25, 33, 50, 66, 75, 90, 100};

  long long checked = 0, mismatches = 0, table_mismatches = 0;
  for (const Kernel& k : kernels) {
    cudaFuncAttributes attr{};
    CHECK(cudaFuncGetAttributes(&attr, k.fn));
    std::printf("%-10s regs %3d static %6zu maxThreads %4d\n", k.name, attr.numRegs,
                attr.sharedSizeBytes, attr.maxThreadsPerBlock);
    int max_dyn = int(dev.smem_per_block_optin_bytes - attr.sharedSizeBytes);
    CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn));
    for (int carve : carveouts) {
      CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carve));
      for (int t : threads) {
        // Blocks over the function's maxThreadsPerBlock (set by its registers) are compared too:
        // both say 0.
        for (long long dyn : dyns) {
          if (dyn > max_dyn) continue;
          int cuda_blocks = -1;
          cudaError_t e =
              cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cuda_blocks, k.fn, t, size_t(dyn));
          if (e != cudaSuccess) {
            std::printf("  api error %s threads %d dyn %lld carveout %d\n", cudaGetErrorString(e),
                        t, dyn, carve);
            continue;
          }
          gpufl::OccupancyInput in{t, attr.numRegs, (int64_t)attr.sharedSizeBytes, dyn, carve};
          auto ours = gpufl::computeOccupancyDetail(from_device, in);
          ++checked;
          if (ours.occupancy.max_active_blocks != cuda_blocks) {
            if (++mismatches <= 40)
              std::printf(
                  "  MISMATCH %s threads %d regs %d static %zu dyn %lld carveout %d: cuda %d ours "
                  "%d "
                  "(regs %d smem %d warps %d blocks %d, smem/SM %lld)\n",
                  k.name, t, attr.numRegs, attr.sharedSizeBytes, dyn, carve, cuda_blocks,
                  ours.occupancy.max_active_blocks, ours.blocks_by_registers,
                  ours.blocks_by_shared_mem, ours.blocks_by_warps, ours.blocks_by_blocks,
                  (long long)ours.smem_per_sm_bytes);
          }
          if (table) {
            auto t_occ = gpufl::computeOccupancyDetail(*table, in);
            if (t_occ.occupancy.max_active_blocks != cuda_blocks) ++table_mismatches;
          }
        }
      }
    }
  }
  std::printf("checked %lld configurations: %lld mismatches (device limits), %lld (table limits)\n",
              checked, mismatches, table_mismatches);
  return mismatches == 0 && table_mismatches == 0 ? 0 : 1;
}
