// Faults: a kernel writing far out of bounds among many good ones (a sticky CUDA error), an
// allocation four times the device's memory (out of memory, caught, the program goes on), and a
// host crash (SIGSEGV, abort) after kernels have run.
#include <csignal>

#include "incidents.hpp"

namespace {

using incidents::fact;
using incidents::Range;

constexpr int kN = 1 << 16;

__global__ void scale_step(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

__global__ void shift_step(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 0.25f;
}

// One store `index` floats past `x`: far beyond any allocation, so the MMU faults for sure.
__global__ void oob_write(float* x, long long index) {
  if (blockIdx.x == 0 && threadIdx.x == 0) x[index] = 42.0f;
}

// 9 steps of 4 kernels on two streams in scope "train_step", a device synchronize after every 4th;
// then, after the last synchronize, 4 more good kernels and oob_write on stream 2 in scope
// "bad_step". The synchronize after it reports the fault: the program says so and exits 1.
int oob(int, char**) {
  constexpr int kSteps = 9, kSyncEvery = 4;
  constexpr long long kFar = (1LL << 40) / sizeof(float);  // 1 TiB past the allocation
  float *a, *b;
  INCIDENT_CHECK(cudaMalloc(&a, kN * sizeof(float)));
  INCIDENT_CHECK(cudaMalloc(&b, kN * sizeof(float)));
  INCIDENT_CHECK(cudaMemset(a, 0, kN * sizeof(float)));
  INCIDENT_CHECK(cudaMemset(b, 0, kN * sizeof(float)));
  cudaStream_t s1, s2;
  INCIDENT_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  INCIDENT_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  fact("HANDLE s1", incidents::handle(s1));
  fact("HANDLE s2", incidents::handle(s2));
  int since_sync = 0;
  for (int step = 0; step < kSteps; ++step) {
    {
      Range r("train_step");
      for (int i = 0; i < 2; ++i) {
        scale_step<<<kN / 256, 256, 0, s1>>>(a, kN);
        shift_step<<<kN / 256, 256, 0, s2>>>(b, kN);
        since_sync += 2;
      }
    }
    if (step % kSyncEvery == kSyncEvery - 1) {
      INCIDENT_CHECK(cudaDeviceSynchronize());
      since_sync = 0;
    }
  }
  {
    Range r("bad_step");
    oob_write<<<1, 32, 0, s2>>>(b, kFar);
    ++since_sync;
  }
  fact("SINCE_SYNC", since_sync);
  INCIDENT_CHECK(cudaDeviceSynchronize());  // fails: the program ends here
  fact("RESULT oob", "no fault");
  return 0;
}

// cudaMalloc of four times the device's memory in scope "alloc_step": out of memory, which is not
// sticky; the program clears it and runs a kernel.
int oomRaw(int, char**) {
  size_t free_bytes = 0, total = 0;
  INCIDENT_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const size_t ask = 4 * total;
  fact("REQUEST", std::to_string(ask));
  fact("TOTAL", std::to_string(total));
  void* p = nullptr;
  cudaError_t err;
  {
    Range r("alloc_step");
    err = cudaMalloc(&p, ask);
  }
  if (err != cudaErrorMemoryAllocation) {
    std::fprintf(stderr, "cudaMalloc(%zu) returned %d, not out of memory\n", ask, int(err));
    return 1;
  }
  (void)cudaGetLastError();
  fact("RESULT oom_raw_error", int(err));
  float* x;
  INCIDENT_CHECK(cudaMalloc(&x, kN * sizeof(float)));
  INCIDENT_CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  {
    Range r("after_oom");
    scale_step<<<kN / 256, 256>>>(x, kN);
  }
  float last = 0;
  INCIDENT_CHECK(cudaMemcpy(&last, x + kN - 1, sizeof(float), cudaMemcpyDeviceToHost));
  fact("RESULT oom_raw_value", std::to_string(last));
  INCIDENT_CHECK(cudaFree(x));
  return 0;
}

// `n` launches of each of two kernels in scope "before_crash", synchronized, counted on stdout.
void launchAndSync(int n) {
  float* x;
  INCIDENT_CHECK(cudaMalloc(&x, kN * sizeof(float)));
  INCIDENT_CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  {
    Range r("before_crash");
    for (int i = 0; i < n; ++i) {
      scale_step<<<kN / 256, 256>>>(x, kN);
      shift_step<<<kN / 256, 256>>>(x, kN);
    }
  }
  INCIDENT_CHECK(cudaDeviceSynchronize());
  fact("COUNT scale_step", n);
  fact("COUNT shift_step", n);
}

// Read through a volatile pointer so the compiler cannot see the store is to null (it would emit a
// trap instruction, SIGILL, instead of the store).
int* volatile g_nowhere = nullptr;

int segv(int, char**) {
  launchAndSync(6);
  *g_nowhere = 1;
  return 0;
}

int abortCase(int, char**) {
  launchAndSync(6);
  std::abort();
}

incidents::Register r_oob("oob", oob);
incidents::Register r_oom("oom_raw", oomRaw);
incidents::Register r_segv("segv", segv);
incidents::Register r_abort("abort", abortCase);

}  // namespace
