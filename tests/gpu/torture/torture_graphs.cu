// CUDA graphs: stream capture in global and thread-local mode (with another thread launching while
// a capture is open), capture inside a scope, the explicit graph API with kernel, memcpy and memset
// nodes, many replays, and a graph relaunched from another thread.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "torture.hpp"

namespace {

__global__ void graph_step(float* x, int n, float add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + add;
}

__global__ void outside_capture(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

constexpr int kN = 1 << 16;
constexpr int kNodes = 50;
constexpr int kReplays = 20;

double sum(const float* device, int n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : host) s += v;
  return s;
}

// Captures kNodes launches on a non-blocking stream in `mode`, then replays the graph kReplays
// times. With `busy_neighbour`, another thread launches ordinary kernels on its own stream while
// the capture is open (legal in thread-local and relaxed mode), and the sum of y is printed too.
int captureAndReplay(cudaStreamCaptureMode mode, bool busy_neighbour, const char* name) {
  float *x, *y;
  CUDA_CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, kN * sizeof(float)));
  CUDA_CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  CUDA_CHECK(cudaMemset(y, 0, kN * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // A launch before the capture, so deep engines have the kernel's first launches behind them or
  // not.
  graph_step<<<kN / 256, 256, 0, s>>>(x, kN, 1.0f);
  torture::count("graph_step");
  CUDA_CHECK(cudaStreamSynchronize(s));

  // The neighbour launches kNeighbourLaunches kernels (synchronizing its own stream now and then)
  // while the capture is open: the capture ends only after it has finished.
  constexpr int kNeighbourLaunches = 100;
  std::thread neighbour;
  std::atomic<bool> capturing{false}, neighbour_done{!busy_neighbour};
  if (busy_neighbour) {
    neighbour = std::thread([&] {
      cudaStream_t own;
      CUDA_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
      while (!capturing) std::this_thread::yield();
      for (int launched = 1; launched <= kNeighbourLaunches; ++launched) {
        outside_capture<<<kN / 256, 256, 0, own>>>(y, kN);
        if (launched % 8 == 0) CUDA_CHECK(cudaStreamSynchronize(own));
      }
      CUDA_CHECK(cudaStreamSynchronize(own));
      torture::count("outside_capture", kNeighbourLaunches);
      CUDA_CHECK(cudaStreamDestroy(own));
      neighbour_done = true;
    });
  }
  cudaGraph_t graph;
  {
    torture::Range range("capture");
    CUDA_CHECK(cudaStreamBeginCapture(s, mode));
    capturing = true;
    for (int i = 0; i < kNodes; ++i) graph_step<<<kN / 256, 256, 0, s>>>(x, kN, float(i % 3));
    while (!neighbour_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  }
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  {
    torture::Range range("replay");
    for (int r = 0; r < kReplays; ++r) CUDA_CHECK(cudaGraphLaunch(exec, s));
  }
  torture::count("graph_step", long(kNodes) * kReplays);
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (neighbour.joinable()) neighbour.join();
  torture::result(name, sum(x, kN));
  if (busy_neighbour) torture::result("outside_capture", sum(y, kN));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return 0;
}

torture::Register capture_global("capture_global", [](int, char**) {
  return captureAndReplay(cudaStreamCaptureModeGlobal, false, "capture_global");
});
torture::Register capture_thread_local("capture_thread_local", [](int, char**) {
  return captureAndReplay(cudaStreamCaptureModeThreadLocal, true, "capture_thread_local");
});
torture::Register capture_relaxed("capture_relaxed", [](int, char**) {
  return captureAndReplay(cudaStreamCaptureModeRelaxed, true, "capture_relaxed");
});

// The explicit graph API: memset -> kernel chain -> memcpy, replayed here and from another thread.
torture::Register graph_explicit("graph_explicit", [](int, char**) {
  float *x, *copy;
  CUDA_CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&copy, kN * sizeof(float)));
  cudaGraph_t graph;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaMemsetParams memset{};
  memset.dst = x;
  memset.value = 0;
  memset.elementSize = 4;
  memset.width = kN;
  memset.height = 1;
  cudaGraphNode_t previous;
  CUDA_CHECK(cudaGraphAddMemsetNode(&previous, graph, nullptr, 0, &memset));
  int n = kN;
  for (int i = 0; i < 10; ++i) {
    float add = float(i);
    void* args[] = {&x, &n, &add};
    cudaKernelNodeParams kp{};
    kp.func = reinterpret_cast<void*>(graph_step);
    kp.gridDim = dim3(kN / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    cudaGraphNode_t node;
    CUDA_CHECK(cudaGraphAddKernelNode(&node, graph, &previous, 1, &kp));
    previous = node;
  }
  cudaGraphNode_t copy_node;
  CUDA_CHECK(cudaGraphAddMemcpyNode1D(&copy_node, graph, &previous, 1, copy, x, kN * sizeof(float),
                                      cudaMemcpyDeviceToDevice));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int r = 0; r < 30; ++r) CUDA_CHECK(cudaGraphLaunch(exec, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::thread other([&] {  // the same executable graph, launched from another thread
    cudaStream_t own;
    CUDA_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    for (int r = 0; r < 10; ++r) CUDA_CHECK(cudaGraphLaunch(exec, own));
    CUDA_CHECK(cudaStreamSynchronize(own));
    CUDA_CHECK(cudaStreamDestroy(own));
  });
  other.join();
  torture::count("graph_step", 40L * 10);
  torture::result("graph_explicit", sum(copy, kN));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(copy));
  return 0;
});

}  // namespace
