// Whole-process edges: JIT code through the driver API, abort() and SIGKILL with kernels in
// flight, and child processes that use CUDA (spawned, as torch multiprocessing does).
#include <cuda.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "torture.hpp"

extern char** environ;

namespace {

#define DRIVER_CHECK(call)                                                               \
  do {                                                                                   \
    CUresult r_ = (call);                                                                \
    if (r_ != CUDA_SUCCESS) {                                                            \
      const char* s_ = nullptr;                                                          \
      cuGetErrorString(r_, &s_);                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// PTX compiled at build time (jit_kernels.cu), loaded and JIT-compiled by the driver at run time.
torture::Register driver_api("driver_api", [](int, char**) {
  std::ifstream file(GPUFL_TORTURE_PTX);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", GPUFL_TORTURE_PTX);
    return 1;
  }
  std::stringstream text;
  text << file.rdbuf();
  const std::string ptx = text.str();
  DRIVER_CHECK(cuInit(0));
  CUdevice device;
  DRIVER_CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  DRIVER_CHECK(cuDevicePrimaryCtxRetain(&context, device));
  DRIVER_CHECK(cuCtxPushCurrent(context));
  CUmodule module;
  DRIVER_CHECK(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction scale;
  DRIVER_CHECK(cuModuleGetFunction(&scale, module, "jit_scale"));
  constexpr int kN = 1 << 16;
  CUdeviceptr x;
  DRIVER_CHECK(cuMemAlloc(&x, kN * sizeof(float)));
  DRIVER_CHECK(cuMemsetD32(x, 0x3f800000, kN));  // 1.0f
  int n = kN;
  float factor = 1.5f;
  void* args[] = {&x, &n, &factor};
  for (int r = 0; r < 20; ++r)
    DRIVER_CHECK(cuLaunchKernel(scale, kN / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  torture::count("jit_scale", 20);
  float first = 0;
  DRIVER_CHECK(cuMemcpyDtoH(&first, x, sizeof(float)));
  torture::result("driver_api", first);
  DRIVER_CHECK(cuMemFree(x));
  DRIVER_CHECK(cuModuleUnload(module));
  DRIVER_CHECK(cuCtxPopCurrent(nullptr));
  DRIVER_CHECK(cuDevicePrimaryCtxRelease(device));
  return 0;
});

__global__ void busy(float* x, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < rounds; ++r) v = v * 0.999f + 0.001f;
  x[i] = v;
}

// Launches work and leaves it in flight; the caller then ends the process abruptly.
void launchInFlight() {
  constexpr int kN = 1 << 20;
  float* x;
  CUDA_CHECK(cudaMalloc(&x, kN * sizeof(float)));
  for (int r = 0; r < 20; ++r) busy<<<kN / 256, 256>>>(x, kN, 2000);
  CUDA_CHECK(cudaDeviceSynchronize());  // the first 20 have run and may be logged
  for (int r = 0; r < 20; ++r) busy<<<kN / 256, 256>>>(x, kN, 20000);
  torture::count("busy", 40);
  torture::printCounts();
}

torture::Register abort_case("abort", [](int, char**) -> int {
  launchInFlight();
  std::abort();
});

torture::Register sigkill_case("sigkill", [](int, char**) -> int {
  launchInFlight();
  ::kill(::getpid(), SIGKILL);
  return 99;  // not reached
});

// The parent and two spawned children (the same binary, case `child`) each use CUDA.
torture::Register child("child", [](int, char**) {
  constexpr int kN = 1 << 16;
  float* x;
  CUDA_CHECK(cudaMalloc(&x, kN * sizeof(float)));
  CUDA_CHECK(cudaMemset(x, 0, kN * sizeof(float)));
  for (int r = 0; r < 10; ++r) busy<<<kN / 256, 256>>>(x, kN, 10);
  CUDA_CHECK(cudaDeviceSynchronize());
  torture::count("busy", 10);
  return 0;
});

torture::Register spawn("spawn", [](int, char** argv) {
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (len <= 0) return 1;
  self[len] = '\0';
  torture::cases()["child"](0, argv);  // the parent uses CUDA before spawning, as a trainer does
  std::vector<pid_t> pids;
  for (int c = 0; c < 2; ++c) {
    char name[] = "child";
    char* child_argv[] = {self, name, nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, self, nullptr, nullptr, child_argv, environ) != 0) return 1;
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::printf("CHILDREN ok %d of %zu\n", int(pids.size()) - failed, pids.size());
  return failed;
});

}  // namespace
