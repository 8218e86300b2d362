// The seeds' kernels in one program with no gpufl calls, so the same binary runs plain, under
// Nsight Compute and under `gpufl trace`: the oracle comparisons (durations, occupancy, SASS
// counters) use it. Usage: kernel_zoo [repeats=20] [--events]
// --events: also time every launch with a CUDA event pair around it (seed 02's honest harness: no
// profiler at all) and print the median per kernel, a third witness beside gpufl and ncu.
// KERNEL_ZOO_SLOWER=1: matmul_col_per_thread does 10% more work (K 282 instead of 256) at the same
// launch shape: the planted regression `gpufl diff` must catch (scripts/gpu-run.sh diff). Not the
// row kernel: its loads stride K floats between threads, and K = 282 made it 2.3x *faster* on the
// H200 (a 1 KiB stride, K = 256, piles every thread's loads onto the same cache sets).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "common.cuh"

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

__global__ void block_reduce_naive(const float* in, float* out, int n) {
  __shared__ float smem[4096];
  int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
  smem[tid] = (gid < n) ? in[gid] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = smem[0];
}

__global__ void block_reduce_optimized(const float* in, float* out, int n) {
  extern __shared__ float smem[];
  int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
  smem[tid] = (gid < n) ? in[gid] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = smem[0];
}

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Times launches with event pairs; the events are read once at the end so the loop stays async.
class EventTimer {
 public:
  explicit EventTimer(bool on) : on_(on) {}
  template <typename Launch>
  void time(const char* name, Launch launch) {
    if (!on_) return launch();
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    CUDA_CHECK(cudaEventRecord(a));
    launch();
    CUDA_CHECK(cudaEventRecord(b));
    pending_.push_back({name, a, b});
  }
  void print() {
    if (!on_) return;
    CUDA_CHECK(cudaDeviceSynchronize());
    std::map<std::string, std::vector<float>> ms;
    for (auto& p : pending_) {
      float t = 0;
      CUDA_CHECK(cudaEventElapsedTime(&t, p.a, p.b));
      ms[p.name].push_back(t);
    }
    for (auto& [name, v] : ms) {
      std::sort(v.begin(), v.end());
      std::printf("events: %s n=%zu median_ns=%.0f\n", name.c_str(), v.size(),
                  v[v.size() / 2] * 1e6);
    }
  }

 private:
  struct Pending {
    const char* name;
    cudaEvent_t a, b;
  };
  bool on_;
  std::vector<Pending> pending_;
};

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  EventTimer timer(argc > 2 && std::strcmp(argv[2], "--events") == 0);
  const int M = 512, K = 256, N = 512;
  const char* slower = std::getenv("KERNEL_ZOO_SLOWER");
  const int K_col =
      slower && std::strcmp(slower, "1") == 0 ? K * 11 / 10 : K;  // A and B hold K_col
  const int R = 1 << 22, block = 256, rgrid = R / block;
  auto hA = randomFloats(size_t(M) * K_col, 1), hB = randomFloats(size_t(K_col) * N, 2),
       hR = randomFloats(R, 3);
  float *A, *B, *C, *in, *out, *y;
  CUDA_CHECK(cudaMalloc(&A, hA.size() * 4));
  CUDA_CHECK(cudaMalloc(&B, hB.size() * 4));
  CUDA_CHECK(cudaMalloc(&C, size_t(M) * N * 4));
  CUDA_CHECK(cudaMalloc(&in, size_t(R) * 4));
  CUDA_CHECK(cudaMalloc(&out, size_t(rgrid) * 4));
  CUDA_CHECK(cudaMalloc(&y, size_t(R) * 4));
  CUDA_CHECK(cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(in, hR.data(), hR.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(y, 0, size_t(R) * 4));
  for (int r = 0; r < repeats; ++r) {
    timer.time("matmul_row_per_thread",
               [&] { matmul_row_per_thread<<<(M + 255) / 256, 256>>>(A, B, C, M, K, N); });
    timer.time("matmul_col_per_thread",
               [&] { matmul_col_per_thread<<<(N + 255) / 256, 256>>>(A, B, C, M, K_col, N); });
    timer.time("block_reduce_naive", [&] { block_reduce_naive<<<rgrid, block>>>(in, out, R); });
    timer.time("block_reduce_optimized", [&] {
      block_reduce_optimized<<<rgrid, block, block * sizeof(float)>>>(in, out, R);
    });
    timer.time("saxpy", [&] { saxpy<<<rgrid, block>>>(2.0f, in, y, R); });
  }
  timer.print();
  std::vector<float> hC(size_t(M) * N);
  CUDA_CHECK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("kernel_zoo: %d rounds of 5 kernels, C[0]=%f\n", repeats, hC[0]);
  return 0;
}
