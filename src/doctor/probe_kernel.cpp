#include "doctor/probe_kernel.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <vector>

namespace gpufl::doctor {
namespace {

// out[i] = i + iters for i < n: a loop long enough for PC sampling to see the kernel run.
constexpr const char* kPtx = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry gpufl_doctor_probe(.param .u64 out, .param .u32 n, .param .u32 iters)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r2, [iters];
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r3, %r4, %r5, %r3;
  setp.ge.u32 %p1, %r3, %r1;
  @%p1 bra DONE;
  mov.u32 %r6, %r3;
  mov.u32 %r7, 0;
LOOP:
  setp.ge.u32 %p2, %r7, %r2;
  @%p2 bra STORE;
  add.u32 %r6, %r6, 1;
  add.u32 %r7, %r7, 1;
  bra LOOP;
STORE:
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r6;
DONE:
  ret;
}
)";

// Driver API entry points with plain C types (CUresult and CUdevice are int, CUdeviceptr a 64-bit
// integer, the handles pointers), so no cuda.h is needed.
using Ptr = void*;
struct Api {
  int (*init)(unsigned);
  int (*deviceGet)(int*, int);
  int (*primaryCtxRetain)(Ptr*, int);
  int (*primaryCtxRelease)(int);
  int (*ctxSetCurrent)(Ptr);
  int (*ctxSynchronize)();
  int (*moduleLoadData)(Ptr*, const void*);
  int (*moduleUnload)(Ptr);
  int (*moduleGetFunction)(Ptr*, Ptr, const char*);
  int (*memAlloc)(uint64_t*, size_t);
  int (*memFree)(uint64_t);
  int (*memcpyDtoH)(void*, uint64_t, size_t);
  int (*launchKernel)(Ptr, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                      Ptr, void**, void**);
  int (*getErrorName)(int, const char**);
};

template <typename F>
bool bind(void* h, F& fn, const char* name, std::string* missing) {
  fn = reinterpret_cast<F>(dlsym(h, name));
  if (fn == nullptr && missing->empty()) *missing = name;
  return fn != nullptr;
}

}  // namespace

const char* probeKernelPtx() {
  return kPtx;
}

bool runProbeKernel(std::string* error) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    *error = "no NVIDIA driver (libcuda.so.1 not found)";
    return false;
  }
  Api api{};
  std::string missing;
  bind(h, api.init, "cuInit", &missing);
  bind(h, api.deviceGet, "cuDeviceGet", &missing);
  bind(h, api.primaryCtxRetain, "cuDevicePrimaryCtxRetain", &missing);
  bind(h, api.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", &missing);
  bind(h, api.ctxSetCurrent, "cuCtxSetCurrent", &missing);
  bind(h, api.ctxSynchronize, "cuCtxSynchronize", &missing);
  bind(h, api.moduleLoadData, "cuModuleLoadData", &missing);
  bind(h, api.moduleUnload, "cuModuleUnload", &missing);
  bind(h, api.moduleGetFunction, "cuModuleGetFunction", &missing);
  bind(h, api.memAlloc, "cuMemAlloc_v2", &missing);
  bind(h, api.memFree, "cuMemFree_v2", &missing);
  bind(h, api.memcpyDtoH, "cuMemcpyDtoH_v2", &missing);
  bind(h, api.launchKernel, "cuLaunchKernel", &missing);
  bind(h, api.getErrorName, "cuGetErrorName", &missing);
  if (!missing.empty()) {
    *error = "libcuda.so.1 lacks " + missing;
    return false;
  }
  std::string failed;
  auto check = [&](const char* what, int r) {
    if (r == 0 || !failed.empty()) return failed.empty();
    const char* name = nullptr;
    api.getErrorName(r, &name);
    failed = std::string(what) + ": " + (name != nullptr ? name : "CUDA error") + " (" +
             std::to_string(r) + ")";
    return false;
  };
  int dev = 0;
  Ptr ctx = nullptr, module = nullptr, fn = nullptr;
  uint64_t out = 0;
  constexpr unsigned kThreads = 256, kBlocks = 4, kLaunches = 3;
  unsigned n = kThreads * kBlocks, iters = 20000;
  std::vector<uint32_t> host(n, 0);
  bool ok =
      check("cuInit", api.init(0)) && check("cuDeviceGet", api.deviceGet(&dev, 0)) &&
      check("cuDevicePrimaryCtxRetain", api.primaryCtxRetain(&ctx, dev)) &&
      check("cuCtxSetCurrent", api.ctxSetCurrent(ctx)) &&
      check("cuModuleLoadData", api.moduleLoadData(&module, kPtx)) &&
      check("cuModuleGetFunction", api.moduleGetFunction(&fn, module, "gpufl_doctor_probe")) &&
      check("cuMemAlloc", api.memAlloc(&out, n * sizeof(uint32_t)));
  void* params[] = {&out, &n, &iters};
  for (unsigned i = 0; ok && i < kLaunches; ++i)
    ok = check("cuLaunchKernel",
               api.launchKernel(fn, kBlocks, 1, 1, kThreads, 1, 1, 0, nullptr, params, nullptr));
  ok = ok && check("cuCtxSynchronize", api.ctxSynchronize()) &&
       check("cuMemcpyDtoH", api.memcpyDtoH(host.data(), out, n * sizeof(uint32_t)));
  for (unsigned i = 0; ok && i < n; ++i)
    if (host[i] != i + iters) {
      failed = "the kernel wrote " + std::to_string(host[i]) + " at " + std::to_string(i) +
               ", not " + std::to_string(i + iters);
      ok = false;
    }
  if (out != 0) api.memFree(out);
  if (module != nullptr) api.moduleUnload(module);
  if (ctx != nullptr) api.primaryCtxRelease(dev);
  if (!ok) *error = failed;
  return ok;
}

}  // namespace gpufl::doctor
