// Launch shapes: several host threads on their own streams with nested ranges, cooperative and
// cluster launches, more than 48 KB of dynamic shared memory, a shared-memory carveout, a
// register-limited kernel, local-memory spills, a launch that runs for seconds, and a naive and a
// tiled matmul launched once each (a crash of PcSamplingWithSass, issue 12).
#include <cooperative_groups.h>

#include <thread>
#include <vector>

#include "gpufl/gpufl.hpp"
#include "torture.hpp"

namespace cg = cooperative_groups;

namespace {

__global__ void thread_work(float* x, int n, int salt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.99f + float(salt % 7);
}

torture::Register threads("threads", [](int, char**) {
  constexpr int kThreads = 4, kLaunches = 200, kN = 1 << 14;
  std::vector<std::thread> pool;
  std::vector<double> sums(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([t, &sums] {
      cudaStream_t s;
      CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      float* x;
      CUDA_CHECK(cudaMallocAsync(&x, kN * sizeof(float), s));
      CUDA_CHECK(cudaMemsetAsync(x, 0, kN * sizeof(float), s));
      torture::Range outer("worker");
      for (int i = 0; i < kLaunches; ++i) {
        torture::Range inner(i % 2 ? "odd" : "even");
        GFL_SCOPE("step") {
          thread_work<<<kN / 128, 128, 0, s>>>(x, kN, t + i);
        }
      }
      std::vector<float> host(kN);
      CUDA_CHECK(cudaMemcpyAsync(host.data(), x, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
      CUDA_CHECK(cudaStreamSynchronize(s));
      for (float v : host) sums[t] += v;
      CUDA_CHECK(cudaFreeAsync(x, s));
      CUDA_CHECK(cudaStreamSynchronize(s));
      CUDA_CHECK(cudaStreamDestroy(s));
    });
  }
  for (auto& th : pool) th.join();
  torture::count("thread_work", long(kThreads) * kLaunches);
  double total = 0;
  for (double s : sums) total += s;
  torture::result("threads", total);
  return 0;
});

__global__ void cooperative_sum(const float* in, float* partial, float* out, int n) {
  cg::grid_group grid = cg::this_grid();
  float local = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) local += in[i];
  atomicAdd(&partial[blockIdx.x], local);
  grid.sync();
  if (grid.thread_rank() == 0) {
    float total = 0;
    for (int b = 0; b < gridDim.x; ++b) total += partial[b];
    *out = total;
  }
}

torture::Register cooperative("cooperative", [](int, char**) {
  constexpr int kN = 1 << 20;
  int blocks_per_sm = 0, sms = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, cooperative_sum, 256, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int blocks = std::min(blocks_per_sm * sms, 264);
  float *in, *partial, *out;
  CUDA_CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&partial, blocks * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&out, sizeof(float)));
  std::vector<float> ones(kN, 1.0f);
  CUDA_CHECK(cudaMemcpy(in, ones.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  float total = 0;
  for (int r = 0; r < 10; ++r) {
    CUDA_CHECK(cudaMemset(partial, 0, blocks * sizeof(float)));
    int n = kN;
    void* args[] = {&in, &partial, &out, &n};
    CUDA_CHECK(
        cudaLaunchCooperativeKernel(reinterpret_cast<void*>(cooperative_sum), blocks, 256, args));
    CUDA_CHECK(cudaMemcpy(&total, out, sizeof(float), cudaMemcpyDeviceToHost));
  }
  torture::count("cooperative_sum", 10);
  torture::result("cooperative", total);
  return 0;
});

__global__ void __cluster_dims__(2, 1, 1) cluster_exchange(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int mine;
  if (threadIdx.x == 0) mine = blockIdx.x;
  cluster.sync();
  int* theirs = cluster.map_shared_rank(&mine, cluster.block_rank() ^ 1);
  if (threadIdx.x == 0) out[blockIdx.x] = *theirs;
  cluster.sync();
}

__global__ void cluster_plain(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) out[blockIdx.x] = int(cluster.block_rank());
}

torture::Register cluster("cluster", [](int, char**) {
  constexpr int kBlocks = 64;
  int* out;
  CUDA_CHECK(cudaMalloc(&out, kBlocks * sizeof(int)));
  for (int r = 0; r < 10; ++r) cluster_exchange<<<kBlocks, 128>>>(out);
  torture::count("cluster_exchange", 10);
  // cudaLaunchKernelEx with a cluster dimension given at launch time.
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kBlocks);
  config.blockDim = dim3(128);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 4;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  for (int r = 0; r < 10; ++r) CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_plain, out));
  torture::count("cluster_plain", 10);
  std::vector<int> host(kBlocks);
  CUDA_CHECK(cudaMemcpy(host.data(), out, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
  long s = 0;
  for (int v : host) s += v;
  torture::result("cluster", double(s));
  return 0;
});

__global__ void big_dynamic_smem(unsigned long long* out, int words) {
  extern __shared__ int smem[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) smem[i] = i % 13;
  __syncthreads();
  unsigned long long s = 0;  // integers: the sum does not depend on the order of the atomics
  for (int i = threadIdx.x; i < words; i += blockDim.x) s += smem[words - 1 - i];
  atomicAdd(out, s);
}

torture::Register big_smem("big_smem", [](int, char**) {
  constexpr int kBytes = 160 * 1024;
  CUDA_CHECK(
      cudaFuncSetAttribute(big_dynamic_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
  unsigned long long* out;
  CUDA_CHECK(cudaMalloc(&out, sizeof(*out)));
  CUDA_CHECK(cudaMemset(out, 0, sizeof(*out)));
  for (int r = 0; r < 8; ++r) big_dynamic_smem<<<132, 512, kBytes>>>(out, kBytes / 4);
  torture::count("big_dynamic_smem", 8);
  unsigned long long host = 0;
  CUDA_CHECK(cudaMemcpy(&host, out, sizeof(host), cudaMemcpyDeviceToHost));
  torture::result("big_smem", double(host));
  return 0;
});

// 256 threads, 16 KB static shared memory, preferred carveout 25%: the occupancy API says 3 blocks
// per SM (shared memory limits), not 8. The case prints what the API says; the harness compares the
// log's kernel_def with it.
__global__ void carveout_kernel(float* out) {
  __shared__ float tile[4096];
  tile[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[255 - threadIdx.x];
}

torture::Register carveout("carveout", [](int, char**) {
  CUDA_CHECK(
      cudaFuncSetAttribute(carveout_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 25));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, carveout_kernel, 256, 0));
  std::printf("OCCUPANCY carveout_kernel max_active_blocks %d\n", blocks);
  float* out;
  CUDA_CHECK(cudaMalloc(&out, 1024 * 256 * sizeof(float)));
  for (int r = 0; r < 5; ++r) carveout_kernel<<<1024, 256>>>(out);
  torture::count("carveout_kernel", 5);
  float host = 0;
  CUDA_CHECK(cudaMemcpy(&host, out + 7, sizeof(float), cudaMemcpyDeviceToHost));
  torture::result("carveout", host);
  return 0;
});

// Many live values per thread: the register count limits occupancy.
__global__ void __launch_bounds__(1024, 1) register_heavy(const float* in, float* out, int n) {
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) acc[k] = in[(threadIdx.x + k) % n];
  for (int it = 0; it < 16; ++it)
#pragma unroll
    for (int k = 0; k < 48; ++k) acc[k] = acc[k] * acc[(k + 1) % 48] + 0.5f;
  float s = 0;
#pragma unroll
  for (int k = 0; k < 48; ++k) s += acc[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// A dynamically indexed array stays in local memory (spills to the stack frame).
__global__ void local_spill(const int* index, float* out) {
  float scratch[256];
  for (int k = 0; k < 256; ++k) scratch[k] = float(k * threadIdx.x % 17);
  out[blockIdx.x * blockDim.x + threadIdx.x] = scratch[index[threadIdx.x] & 255];
}

torture::Register registers("registers", [](int, char**) {
  constexpr int kN = 4096;
  float *in, *out;
  int* index;
  CUDA_CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&out, 64 * 1024 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&index, 1024 * sizeof(int)));
  CUDA_CHECK(cudaMemset(in, 0, kN * sizeof(float)));
  CUDA_CHECK(cudaMemset(index, 0, 1024 * sizeof(int)));
  for (int r = 0; r < 5; ++r) register_heavy<<<64, 1024>>>(in, out, kN);
  for (int r = 0; r < 5; ++r) local_spill<<<64, 256>>>(index, out);
  torture::count("register_heavy", 5);
  torture::count("local_spill", 5);
  float host = 0;
  CUDA_CHECK(cudaMemcpy(&host, out + 3, sizeof(float), cudaMemcpyDeviceToHost));
  torture::result("registers", host);
  return 0;
});

// Spins until `ns` nanoseconds of GPU time have passed (globaltimer), so its length does not grow
// when instrumentation slows each instruction.
__global__ void spin_for(long long ns, int* out) {
  long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  long long now = start;
  int iterations = 0;
  while (now - start < ns) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    ++iterations;
  }
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = iterations > 0;
}

torture::Register long_kernel("long_kernel", [](int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  int* out;
  CUDA_CHECK(cudaMalloc(&out, sizeof(int)));
  spin_for<<<132, 128>>>(static_cast<long long>(seconds * 1e9), out);
  torture::count("spin_for");
  int host = 0;
  CUDA_CHECK(cudaMemcpy(&host, out, sizeof(int), cudaMemcpyDeviceToHost));
  torture::result("long_kernel", host);
  return 0;
});

// Exits with kernels still running (no synchronization before return).
torture::Register exit_in_flight("exit_in_flight", [](int, char**) {
  int* out;
  CUDA_CHECK(cudaMalloc(&out, sizeof(int)));
  for (int r = 0; r < 4; ++r) spin_for<<<132, 128>>>(200'000'000LL, out);
  torture::count("spin_for", 4);
  torture::result("exit_in_flight", 1);
  return 0;
});

constexpr int kTile = 16;

__global__ void matmul_naive(const float* A, const float* B, float* C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float s = 0;
  for (int k = 0; k < n; ++k) s += A[row * n + k] * B[k * n + col];
  C[row * n + col] = s;
}

__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float a[kTile][kTile], b[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float s = 0;
  for (int t = 0; t < n / kTile; ++t) {
    a[threadIdx.y][threadIdx.x] = A[row * n + t * kTile + threadIdx.x];
    b[threadIdx.y][threadIdx.x] = B[(t * kTile + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) s += a[threadIdx.y][k] * b[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = s;
}

torture::Register matmul_once("matmul_once", [](int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  std::vector<float> host(size_t(n) * n);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i % 7) * 0.25f;
  float *A, *B, *C;
  const size_t bytes = host.size() * sizeof(float);
  CUDA_CHECK(cudaMalloc(&A, bytes));
  CUDA_CHECK(cudaMalloc(&B, bytes));
  CUDA_CHECK(cudaMalloc(&C, bytes));
  CUDA_CHECK(cudaMemcpy(A, host.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B, host.data(), bytes, cudaMemcpyHostToDevice));
  dim3 block(kTile, kTile), grid(n / kTile, n / kTile);
  matmul_naive<<<grid, block>>>(A, B, C, n);
  matmul_tiled<<<grid, block>>>(A, B, C, n);
  torture::count("matmul_naive");
  torture::count("matmul_tiled");
  float corner = 0;
  CUDA_CHECK(cudaMemcpy(&corner, C + size_t(n) * n - 1, sizeof(float), cudaMemcpyDeviceToHost));
  torture::result("matmul_once", corner);
  return 0;
});

}  // namespace

// Waits on the GPU for a flag the host sets after further launches (producer/consumer through
// mapped memory, as persistent kernels and collectives do). A profiler that waits for the GPU
// inside one of those later launches would deadlock the program; the kernel gives up after 15 s of
// GPU time so that such a deadlock shows as a wrong result instead of a hang.
__global__ void wait_for_host(volatile int* flag, int* seen) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (*flag != 0) {
      *seen = 1;
      return;
    }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < 15'000'000'000LL);
  *seen = 0;
}

__global__ void small_step(int* x) {
  atomicAdd(x, 1);
}

torture::Register host_flag("host_flag", [](int, char**) {
  int* flag;
  CUDA_CHECK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  *flag = 0;
  int *seen, *steps;
  CUDA_CHECK(cudaMalloc(&seen, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&steps, sizeof(int)));
  CUDA_CHECK(cudaMemset(steps, 0, sizeof(int)));
  cudaStream_t waiter, worker;
  CUDA_CHECK(cudaStreamCreateWithFlags(&waiter, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&worker, cudaStreamNonBlocking));
  int* device_flag;
  CUDA_CHECK(cudaHostGetDevicePointer(&device_flag, flag, 0));
  wait_for_host<<<1, 1, 0, waiter>>>(device_flag, seen);
  torture::count("wait_for_host");
  constexpr int kSteps = 40;  // past every engine's instrumented launches of small_step
  for (int i = 0; i < kSteps; ++i) small_step<<<1, 32, 0, worker>>>(steps);
  torture::count("small_step", kSteps);
  __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
  CUDA_CHECK(cudaDeviceSynchronize());
  int host_seen = 0, host_steps = 0;
  CUDA_CHECK(cudaMemcpy(&host_seen, seen, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&host_steps, steps, sizeof(int), cudaMemcpyDeviceToHost));
  torture::result("flag_seen", host_seen);
  torture::result("steps", host_steps);
  CUDA_CHECK(cudaFreeHost(flag));
  return 0;
});
