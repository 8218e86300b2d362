#include "cuda/bench_device.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/device_peaks.hpp"

namespace gpufl::cuda {
namespace {

// The driver entry points the harness needs, by their exported (versioned) names.
struct BenchApi {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*ctxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*ctxSetCurrent)(CUcontext) = nullptr;
  CUresult (*ctxGetDevice)(CUdevice*) = nullptr;
  CUresult (*deviceGet)(CUdevice*, int) = nullptr;
  CUresult (*primaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*deviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*eventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*eventDestroy)(CUevent) = nullptr;
  CUresult (*eventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*eventSynchronize)(CUevent) = nullptr;
  CUresult (*eventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*streamBeginCapture)(CUstream, CUstreamCaptureMode) = nullptr;
  CUresult (*streamEndCapture)(CUstream, CUgraph*) = nullptr;
  CUresult (*graphInstantiate)(CUgraphExec*, CUgraph, unsigned long long) = nullptr;
  CUresult (*graphLaunch)(CUgraphExec, CUstream) = nullptr;
  CUresult (*graphExecDestroy)(CUgraphExec) = nullptr;
  CUresult (*graphDestroy)(CUgraph) = nullptr;
  CUresult (*memAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*memFree)(CUdeviceptr) = nullptr;
  CUresult (*memsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) = nullptr;
  CUresult (*getErrorName)(CUresult, const char**) = nullptr;
  CUresult (*deviceGetName)(char*, int, CUdevice) = nullptr;
};

template <typename Fn>
bool bind(void* h, Fn*& slot, const char* name, const char* fallback = nullptr) {
  void* sym = dlsym(h, name);
  if (!sym && fallback) sym = dlsym(h, fallback);
  slot = reinterpret_cast<Fn*>(sym);
  return sym != nullptr;
}

std::string text(const BenchApi& api, CUresult r, const char* what) {
  const char* name = nullptr;
  if (api.getErrorName) api.getErrorName(r, &name);
  return std::string(what) + " failed: " + (name ? name : "CUDA error " + std::to_string(int(r)));
}

class CudaBenchDevice final : public core::BenchDevice {
 public:
  CudaBenchDevice(const BenchApi& api, CUstream stream, CUdevice device, int ordinal)
      : api_(api), stream_(stream), device_(device), ordinal_(ordinal) {}
  ~CudaBenchDevice() override {
    if (exec_) api_.graphExecDestroy(exec_);
    if (graph_) api_.graphDestroy(graph_);
    if (flush_) api_.memFree(flush_);
    if (start_) api_.eventDestroy(start_);
    if (stop_) api_.eventDestroy(stop_);
  }

  bool setUp(std::string* error) {
    CUresult r = api_.eventCreate(&start_, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = api_.eventCreate(&stop_, CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS) *error = text(api_, r, "cuEventCreate");
    return r == CUDA_SUCCESS;
  }

  double timed(const std::function<void()>& work, std::string* error) override {
    return between([&] { work(); }, error);
  }

  bool capture(const std::function<void()>& fn, int calls, std::string* error) override {
    // Thread-local: only this thread's unsafe calls (synchronising, allocating) invalidate the
    // capture.
    CUresult r = api_.streamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    if (r != CUDA_SUCCESS) {
      *error = text(
          api_, r, "cuStreamBeginCapture (a capture needs a stream other than the legacy default)");
      return false;
    }
    for (int i = 0; i < calls; ++i) fn();
    r = api_.streamEndCapture(stream_, &graph_);
    if (r == CUDA_SUCCESS) r = api_.graphInstantiate(&exec_, graph_, 0);
    if (r != CUDA_SUCCESS) *error = text(api_, r, "graph capture/instantiate");
    return r == CUDA_SUCCESS;
  }

  double timedReplay(std::string* error) override {
    CUresult r = CUDA_SUCCESS;
    const double ns = between([&] { r = api_.graphLaunch(exec_, stream_); }, error);
    if (r != CUDA_SUCCESS) {
      *error = text(api_, r, "cuGraphLaunch");
      return -1;
    }
    return ns;
  }

  bool flushL2(std::string* error) override {
    if (!flush_) {
      int l2 = 0;
      api_.deviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_);
      flush_bytes_ =
          static_cast<size_t>(l2 > 0 ? 2 * l2 : 128 << 20);  // twice L2: nothing of before stays
      CUresult r = api_.memAlloc(&flush_, flush_bytes_);
      if (r != CUDA_SUCCESS) {
        *error = text(api_, r, "cuMemAlloc (L2 flush buffer)");
        return false;
      }
    }
    CUresult r =
        api_.memsetD8Async(flush_, static_cast<unsigned char>(++flushes_), flush_bytes_, stream_);
    if (r != CUDA_SUCCESS) *error = text(api_, r, "cuMemsetD8Async (L2 flush)");
    return r == CUDA_SUCCESS;
  }

  double launchOverheadNs() override {
    if (!tiny_ && api_.memAlloc(&tiny_, 1) != CUDA_SUCCESS) return 0;
    std::vector<double> t;
    std::string error;
    for (int i = 0; i < 21; ++i) {
      const double ns = between([&] { api_.memsetD8Async(tiny_, 0, 1, stream_); }, &error);
      if (ns > 0) t.push_back(ns);
    }
    api_.memFree(tiny_);
    tiny_ = 0;
    if (t.empty()) return 0;
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

  uint32_t deviceIndex() override { return static_cast<uint32_t>(ordinal_); }

  double peakTflops(const std::string& dtype) override {
    const auto p = peaks();
    return p ? core::peakTflops(*p, dtype) : 0;
  }
  double peakGbps() override {
    const auto p = peaks();
    return p ? p->gbps : 0;
  }

 private:
  std::optional<core::DevicePeaks> peaks() {
    char name[256] = {};
    if (!api_.deviceGetName || api_.deviceGetName(name, sizeof name, device_) != CUDA_SUCCESS)
      return std::nullopt;
    return core::devicePeaks(name);
  }

  template <typename Work>
  double between(Work&& work, std::string* error) {
    CUresult r = api_.eventRecord(start_, stream_);
    if (r != CUDA_SUCCESS) {
      *error = text(api_, r, "cuEventRecord");
      return -1;
    }
    work();
    r = api_.eventRecord(stop_, stream_);
    if (r == CUDA_SUCCESS) r = api_.eventSynchronize(stop_);
    float ms = 0;
    if (r == CUDA_SUCCESS) r = api_.eventElapsedTime(&ms, start_, stop_);
    if (r != CUDA_SUCCESS) {
      *error = text(api_, r, "timing with events");
      return -1;
    }
    return static_cast<double>(ms) * 1e6;
  }

  BenchApi api_;
  CUstream stream_;
  CUdevice device_;
  int ordinal_;
  CUevent start_ = nullptr, stop_ = nullptr;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  CUdeviceptr flush_ = 0, tiny_ = 0;
  size_t flush_bytes_ = 0;
  unsigned flushes_ = 0;
};

}  // namespace

std::unique_ptr<core::BenchDevice> makeBenchDevice(void* stream, std::string* error) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    *error = "no NVIDIA driver (libcuda.so.1 not found): gpufl::bench needs a GPU";
    return nullptr;
  }
  BenchApi a;
  bool ok = bind(h, a.init, "cuInit") && bind(h, a.ctxGetCurrent, "cuCtxGetCurrent") &&
            bind(h, a.ctxSetCurrent, "cuCtxSetCurrent") &&
            bind(h, a.ctxGetDevice, "cuCtxGetDevice") && bind(h, a.deviceGet, "cuDeviceGet") &&
            bind(h, a.primaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            bind(h, a.deviceGetAttribute, "cuDeviceGetAttribute") &&
            bind(h, a.eventCreate, "cuEventCreate") &&
            bind(h, a.eventDestroy, "cuEventDestroy_v2") &&
            bind(h, a.eventRecord, "cuEventRecord") &&
            bind(h, a.eventSynchronize, "cuEventSynchronize") &&
            bind(h, a.eventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime") &&
            bind(h, a.streamBeginCapture, "cuStreamBeginCapture_v2") &&
            bind(h, a.streamEndCapture, "cuStreamEndCapture") &&
            bind(h, a.graphInstantiate, "cuGraphInstantiateWithFlags") &&
            bind(h, a.graphLaunch, "cuGraphLaunch") &&
            bind(h, a.graphExecDestroy, "cuGraphExecDestroy") &&
            bind(h, a.graphDestroy, "cuGraphDestroy") && bind(h, a.memAlloc, "cuMemAlloc_v2") &&
            bind(h, a.memFree, "cuMemFree_v2") && bind(h, a.memsetD8Async, "cuMemsetD8Async");
  bind(h, a.getErrorName, "cuGetErrorName");
  bind(h, a.deviceGetName, "cuDeviceGetName");
  if (!ok) {
    *error = "this NVIDIA driver lacks an entry point gpufl::bench needs (" +
             std::string(dlerror() ?: "") + ")";
    return nullptr;
  }
  CUresult r = a.init(0);
  if (r != CUDA_SUCCESS) {
    *error = text(a, r, "cuInit");
    return nullptr;
  }
  CUcontext ctx = nullptr;
  a.ctxGetCurrent(&ctx);
  CUdevice dev = 0;
  if (!ctx) {  // no runtime call made yet on this thread: device 0's primary context, as the
               // runtime would
    r = a.deviceGet(&dev, 0);
    if (r == CUDA_SUCCESS) r = a.primaryCtxRetain(&ctx, dev);
    if (r == CUDA_SUCCESS) r = a.ctxSetCurrent(ctx);
    if (r != CUDA_SUCCESS) {
      *error = text(a, r, "making device 0's primary context current");
      return nullptr;
    }
  }
  r = a.ctxGetDevice(&dev);
  if (r != CUDA_SUCCESS) {
    *error = text(a, r, "cuCtxGetDevice");
    return nullptr;
  }
  auto device = std::make_unique<CudaBenchDevice>(a, static_cast<CUstream>(stream), dev,
                                                  static_cast<int>(dev));
  if (!device->setUp(error)) return nullptr;
  return device;
}

}  // namespace gpufl::cuda
