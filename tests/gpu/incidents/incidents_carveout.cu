// Issue 29, item 3: a shared-memory carveout that the kernel_def lost in a mixed program. Four host
// threads launch on their own streams, a captured graph is replayed, then, inside an NVTX range on
// the legacy stream, a kernel with 100 KB of dynamic shared memory and right after it a kernel with
// 256 threads and 16 KB of static shared memory given a preferred carveout of 25% before its only
// launch (256 blocks), and a cooperative launch after that. The case prints what the occupancy API
// says for that kernel; the log's kernel_def must say the same, with carveout_pct 25.
#include <cooperative_groups.h>

#include <thread>
#include <vector>

#include "incidents.hpp"

namespace cg = cooperative_groups;

namespace {

using incidents::fact;
using incidents::Range;

constexpr int kN = 1 << 14;

__global__ void worker_step(float* x, int n, int salt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + float(salt % 5);
}

__global__ void graph_node(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void big_dynamic_tile(int* out, int words) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) buf[i] = i % 7;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = buf[words - 1 - blockIdx.x % words];
}

// 256 threads, 4096 floats = 16 KB of static shared memory.
__global__ void carveout_tail(float* out) {
  __shared__ float tile[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) tile[i] = float(i % 11);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 16) % 4096];
}

__global__ void cooperative_after(int* out) {
  cg::grid_group grid = cg::this_grid();
  if (grid.thread_rank() == 0) out[0] = 1;
  grid.sync();
  if (grid.thread_rank() == grid.size() - 1) out[1] = out[0] + 1;
}

double sumOf(const float* device, int n) {
  std::vector<float> host(n);
  INCIDENT_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : host) s += v;
  return s;
}

void threads() {
  constexpr int kThreads = 4, kLaunches = 50;
  std::vector<std::thread> pool;
  std::vector<double> sums(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([t, &sums] {
      cudaStream_t s;
      INCIDENT_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      float* x;
      INCIDENT_CHECK(cudaMallocAsync(&x, kN * sizeof(float), s));
      INCIDENT_CHECK(cudaMemsetAsync(x, 0, kN * sizeof(float), s));
      for (int i = 0; i < kLaunches; ++i) worker_step<<<kN / 128, 128, 0, s>>>(x, kN, t + i);
      INCIDENT_CHECK(cudaStreamSynchronize(s));
      sums[t] = sumOf(x, kN);
      INCIDENT_CHECK(cudaFreeAsync(x, s));
      INCIDENT_CHECK(cudaStreamSynchronize(s));
      INCIDENT_CHECK(cudaStreamDestroy(s));
    });
  }
  for (auto& th : pool) th.join();
  double total = 0;
  for (double v : sums) total += v;
  fact("RESULT carveout_mixed_threads", std::to_string(total));
}

void graphReplay() {
  constexpr int kNodes = 10, kReplays = 20;
  float* x;
  INCIDENT_CHECK(cudaMalloc(&x, kN * sizeof(float)));
  INCIDENT_CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  cudaStream_t s;
  INCIDENT_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  INCIDENT_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < kNodes; ++i) graph_node<<<kN / 256, 256, 0, s>>>(x, kN);
  INCIDENT_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  INCIDENT_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < kReplays; ++r) INCIDENT_CHECK(cudaGraphLaunch(exec, s));
  INCIDENT_CHECK(cudaStreamSynchronize(s));
  fact("RESULT carveout_mixed_graph", std::to_string(sumOf(x, kN)));
  INCIDENT_CHECK(cudaGraphExecDestroy(exec));
  INCIDENT_CHECK(cudaGraphDestroy(graph));
  INCIDENT_CHECK(cudaStreamDestroy(s));
  INCIDENT_CHECK(cudaFree(x));
}

int carveoutMixed(int, char**) {
  threads();
  graphReplay();
  constexpr int kDynBytes = 100 * 1024, kTailBlocks = 256;
  int sms = 0, coop = 0;
  INCIDENT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  INCIDENT_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  int *ints, *coop_out;
  float* out;
  INCIDENT_CHECK(cudaMalloc(&ints, sms * sizeof(int)));
  INCIDENT_CHECK(cudaMalloc(&coop_out, 2 * sizeof(int)));
  INCIDENT_CHECK(cudaMalloc(&out, kTailBlocks * 256 * sizeof(float)));
  INCIDENT_CHECK(cudaMemset(coop_out, 0, 2 * sizeof(int)));
  {
    Range r("mixed_tail");
    INCIDENT_CHECK(cudaFuncSetAttribute(big_dynamic_tile,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, kDynBytes));
    big_dynamic_tile<<<sms, 256, kDynBytes>>>(ints, kDynBytes / 4);
    INCIDENT_CHECK(
        cudaFuncSetAttribute(carveout_tail, cudaFuncAttributePreferredSharedMemoryCarveout, 25));
    carveout_tail<<<kTailBlocks, 256>>>(out);
    if (coop) {
      void* args[] = {&coop_out};
      INCIDENT_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(cooperative_after),
                                                 dim3(sms), dim3(64), args, 0, nullptr));
    }
  }
  INCIDENT_CHECK(cudaGetLastError());
  INCIDENT_CHECK(cudaDeviceSynchronize());
  int blocks = 0;
  INCIDENT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, carveout_tail, 256, 0));
  fact("OCCUPANCY carveout_tail max_active_blocks", blocks);
  int coop_host[2] = {0, 0};
  INCIDENT_CHECK(cudaMemcpy(coop_host, coop_out, sizeof coop_host, cudaMemcpyDeviceToHost));
  fact("RESULT carveout_mixed_tail", std::to_string(sumOf(out, kTailBlocks * 256)));
  fact("RESULT carveout_mixed_cooperative", coop ? coop_host[1] : 2);
  return 0;
}

incidents::Register r_carveout("carveout_mixed", carveoutMixed);

}  // namespace
