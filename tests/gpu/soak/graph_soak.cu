// The soak's workload (issue 35): a CUDA graph of many tiny kernels replayed until a given number
// of kernels has run, or a time limit passes. No gpufl call: it runs plain, under the bare-CUPTI
// floor library (bench/floor_inject.cpp) and under `gpufl trace`, and soak_report.py compares the
// three.
//
//   gpufl_graph_soak [--kernels N] [--nodes K] [--seconds S] [--sync-every R]
//
// Prints, on stdout, one "tenth" line each time another tenth of the target has been launched (the
// process's resident memory and the GPU memory in use then: the soak's flatness test), and at the
// end one "graph_soak:" line with the exact counts (kernels launched = replays x nodes, plus the
// warm-up) and the wall time of the replay loop. Exit status 0 unless a CUDA call failed.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#define SOAK_CHECK(call)                                                                  \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "graph_soak: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

namespace {

__global__ void tiny(unsigned* counters, int node) {
  if (threadIdx.x == 0) counters[node] += 1;
}

unsigned long long residentBytes() {
  std::ifstream in("/proc/self/statm");
  unsigned long long size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<unsigned long long>(sysconf(_SC_PAGESIZE));
}

long long argValue(int argc, char** argv, const char* name, long long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const long long target = argValue(argc, argv, "--kernels", 50'000'000);
  const int nodes = static_cast<int>(argValue(argc, argv, "--nodes", 64));
  const double seconds = static_cast<double>(argValue(argc, argv, "--seconds", 600));
  // The host waits for the GPU every this many replays, so the queue of launched work (and what
  // CUPTI must keep for it) stays bounded, as in a serving loop.
  const long long sync_every = argValue(argc, argv, "--sync-every", 200);
  if (target <= 0 || nodes <= 0 || sync_every <= 0) {
    std::fprintf(stderr, "graph_soak: --kernels, --nodes and --sync-every must be positive\n");
    return 2;
  }

  unsigned* counters = nullptr;
  SOAK_CHECK(cudaMalloc(&counters, nodes * sizeof(unsigned)));
  SOAK_CHECK(cudaMemset(counters, 0, nodes * sizeof(unsigned)));
  cudaStream_t stream;
  SOAK_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  SOAK_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < nodes; ++k) tiny<<<1, 32, 0, stream>>>(counters, k);
  SOAK_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  SOAK_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // Warm-up: module load, the graph's first upload.
  for (int i = 0; i < 10; ++i) SOAK_CHECK(cudaGraphLaunch(exec, stream));
  SOAK_CHECK(cudaStreamSynchronize(stream));
  const long long warmup_kernels = 10LL * nodes;

  const long long replays_target = (target + nodes - 1) / nodes;
  long long replays = 0;
  int tenth = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  bool timed_out = false;
  while (replays < replays_target) {
    SOAK_CHECK(cudaGraphLaunch(exec, stream));
    ++replays;
    if (replays % sync_every != 0) continue;
    SOAK_CHECK(cudaStreamSynchronize(stream));
    while (tenth < 10 && replays * 10 >= replays_target * (tenth + 1)) {
      size_t free_bytes = 0, total_bytes = 0;
      SOAK_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      ++tenth;
      std::printf("tenth %d: kernels %lld t_s %.3f rss_bytes %llu gpu_used_bytes %llu\n", tenth,
                  replays * nodes, elapsed(), residentBytes(),
                  static_cast<unsigned long long>(total_bytes - free_bytes));
      std::fflush(stdout);
    }
    if (elapsed() > seconds) {
      timed_out = true;
      break;
    }
  }
  SOAK_CHECK(cudaStreamSynchronize(stream));
  const double loop_s = elapsed();
  // Every node ran once per replay (warm-up included): the GPU's own count of kernels.
  unsigned* host = new unsigned[nodes];
  SOAK_CHECK(cudaMemcpy(host, counters, nodes * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long ran = 0;
  for (int k = 0; k < nodes; ++k) ran += host[k];
  delete[] host;
  std::printf(
      "graph_soak: %lld replays of %d kernels, %lld kernels launched in the loop (+%lld warm-up, "
      "%llu counted on the GPU) in %.3f s (%.3f us/kernel)%s\n",
      replays, nodes, replays * nodes, warmup_kernels, ran, loop_s,
      1e6 * loop_s / (replays * nodes), timed_out ? ", stopped by --seconds" : "");
  SOAK_CHECK(cudaGraphExecDestroy(exec));
  SOAK_CHECK(cudaGraphDestroy(graph));
  SOAK_CHECK(cudaStreamDestroy(stream));
  SOAK_CHECK(cudaFree(counters));
  return 0;
}
