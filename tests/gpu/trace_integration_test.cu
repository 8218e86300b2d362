// On a GPU: a program linked with gpufl records every kernel, copy and scope, from two threads,
// with the right attribution, sensible times, occupancy equal to the CUDA occupancy API, and NVML
// samples. Read back through the log reader, as the report does.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gpufl/gpufl.hpp"
#include "log/reader.hpp"

namespace {

__global__ void addOne(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void smemHeavy(float* x, int n) {
  __shared__ float smem[4096];  // 16 KB static: limited by shared memory at some block sizes
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  smem[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) x[i] = smem[(threadIdx.x + 1) % blockDim.x];
}

struct Collected : gpufl::EventVisitor {
  std::map<uint32_t, gpufl::KernelDef> defs;
  std::vector<gpufl::KernelEvent> kernels;
  std::vector<gpufl::MemcpyEvent> copies;
  std::map<uint32_t, gpufl::ScopePath> paths;
  std::vector<gpufl::GpuSample> samples;
  std::vector<gpufl::Note> notes;
  std::vector<gpufl::DeviceInfo> devices;
  // session_start comes once per channel; only the device channel's lists the devices.
  void onSessionStart(const gpufl::SessionStart& s) override {
    devices.insert(devices.end(), s.devices.begin(), s.devices.end());
  }
  void onDevice(const gpufl::DeviceEvent& d) override { devices.push_back(d.device); }
  void onKernelDef(const gpufl::KernelDef& d) override { defs[d.id] = d; }
  void onKernel(const gpufl::KernelEvent& k) override { kernels.push_back(k); }
  void onMemcpy(const gpufl::MemcpyEvent& m) override { copies.push_back(m); }
  void onScopePath(const gpufl::ScopePath& p) override { paths[p.id] = p; }
  void onGpuSample(const gpufl::GpuSample& s) override { samples.push_back(s); }
  void onNote(const gpufl::Note& n) override { notes.push_back(n); }
  void onSync(const gpufl::SyncEvent& e) override { syncs.push_back(e); }
  std::vector<gpufl::SyncEvent> syncs;
  void onMemory(const gpufl::MemoryEvent& e) override { memory.push_back(e); }
  std::vector<gpufl::MemoryEvent> memory;
};

std::string pathName(const Collected& c, uint32_t id) {
  std::string out;
  while (id != 0 && c.paths.count(id)) {
    out = c.paths.at(id).name + (out.empty() ? "" : "/" + out);
    id = c.paths.at(id).parent;
  }
  return out;
}

TEST(TraceIntegration, KernelsCopiesScopesAndSamplesFromTwoThreads) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no GPU";
  const std::string prefix = "trace_integration";
  std::remove((prefix + ".device.log").c_str());
  std::remove((prefix + ".scope.log").c_str());
  std::remove((prefix + ".system.log").c_str());
  gpufl::InitOptions opts;
  opts.app_name = "trace_integration";
  opts.log_path = prefix;
  opts.system_sample_rate_ms = 20;
  ASSERT_TRUE(gpufl::init(opts)) << "GPU profiling did not start";

  const int n = 1 << 20;
  auto work = [n](const char* name, int launches) {
    float* d = nullptr;
    cudaMalloc(&d, n * sizeof(float));
    std::vector<float> h(n, 1.0f);
    GFL_SCOPE(name) {
      cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
      GFL_SCOPE("inner") {
        for (int i = 0; i < launches; ++i) addOne<<<n / 256, 256>>>(d, n);
      }
      smemHeavy<<<n / 256, 256>>>(d, n);
      cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    }
    cudaDeviceSynchronize();
    cudaFree(d);
  };
  std::thread a(work, "thread_a", 50), b(work, "thread_b", 30);
  a.join();
  b.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a few NVML samples
  gpufl::shutdown();

  Collected c;
  gpufl::log::ReadResult r = gpufl::log::readPrefix(prefix, {}, c);
  ASSERT_TRUE(r.any_readable);
  for (const auto& w : r.warnings) ADD_FAILURE() << w.file << ":" << w.line << ": " << w.message;

  // Every launch is there, attributed to its thread's scopes.
  std::map<std::string, int> per_scope;
  for (const auto& k : c.kernels) {
    ASSERT_TRUE(c.defs.count(k.def_id));
    EXPECT_GT(k.end_ns, k.start_ns);
    EXPECT_LT(k.end_ns - k.start_ns, 1'000'000'000);
    per_scope[pathName(c, k.scope_path)]++;
  }
  EXPECT_EQ(per_scope["thread_a/inner"], 50);
  EXPECT_EQ(per_scope["thread_b/inner"], 30);
  EXPECT_EQ(per_scope["thread_a"], 1);
  EXPECT_EQ(per_scope["thread_b"], 1);
  EXPECT_EQ(c.kernels.size(), 82u);

  // Copies: 2 per thread, 4 MiB each, attributed to the outer scope.
  int htod = 0, dtoh = 0;
  for (const auto& m : c.copies) {
    if (m.is_memset) continue;
    EXPECT_EQ(m.bytes, uint64_t{n} * 4);
    htod += m.kind == gpufl::CopyKind::HtoD;
    dtoh += m.kind == gpufl::CopyKind::DtoH;
    std::string scope = pathName(c, m.scope_path);
    EXPECT_TRUE(scope == "thread_a" || scope == "thread_b") << scope;
  }
  EXPECT_EQ(htod, 2);
  EXPECT_EQ(dtoh, 2);

  // Occupancy equals the CUDA occupancy API for every launch shape.
  ASSERT_FALSE(c.devices.empty());
  for (const auto& [id, def] : c.defs) {
    ASSERT_TRUE(def.occupancy.has_value()) << def.name;
    const void* fn = def.name.find("smemHeavy") != std::string::npos ? (const void*)smemHeavy
                                                                     : (const void*)addOne;
    int oracle = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&oracle, fn, static_cast<int>(def.block.count()),
                                                  def.dyn_shared_bytes);
    EXPECT_EQ(def.occupancy->max_active_blocks, oracle) << def.demangled;
  }

  // NVML answered with real values.
  ASSERT_FALSE(c.samples.empty());
  bool any_clock = false, any_power = false;
  for (const auto& s : c.samples) {
    any_clock |= s.clk_sm.value_or(0) > 0;
    any_power |= s.power_mw.value_or(0) > 0;
  }
  EXPECT_TRUE(any_clock);
  EXPECT_TRUE(any_power);
}

// enable_sync_events: each kind of host wait is recorded once per call, timed, with its scope.
TEST(TraceIntegration, SyncEventsWhenAskedFor) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no GPU";
  const std::string prefix = "trace_sync_events";
  for (const char* ch : {".device.log", ".scope.log", ".system.log"})
    std::remove((prefix + ch).c_str());
  gpufl::InitOptions opts;
  opts.app_name = "trace_sync_events";
  opts.log_path = prefix;
  opts.system_sample_rate_ms = 0;
  opts.enable_sync_events = true;
  ASSERT_TRUE(gpufl::init(opts));
  const int n = 1 << 20;
  float* d = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
  GFL_SCOPE("waits") {
    for (int i = 0; i < 3; ++i) {
      addOne<<<n / 256, 256, 0, stream>>>(d, n);
      cudaStreamSynchronize(stream);
    }
    addOne<<<n / 256, 256, 0, stream>>>(d, n);
    cudaEventRecord(event, stream);
    cudaEventSynchronize(event);
    cudaDeviceSynchronize();
  }
  cudaEventDestroy(event);
  cudaStreamDestroy(stream);
  cudaFree(d);
  gpufl::shutdown();

  Collected c;
  gpufl::log::ReadResult r = gpufl::log::readPrefix(prefix, {}, c);
  ASSERT_TRUE(r.any_readable);
  for (const auto& w : r.warnings) ADD_FAILURE() << w.file << ":" << w.line << ": " << w.message;
  bool noted_on = false;
  for (const auto& note : c.notes) noted_on |= note.feature == "sync_events" && note.status == "on";
  EXPECT_TRUE(noted_on);
  std::map<gpufl::SyncKind, int>
      kinds;  // the waits in the scope (CUDA may wait elsewhere, e.g. in cudaFree)
  for (const auto& e : c.syncs) {
    EXPECT_GE(e.end_ns, e.start_ns);
    if (pathName(c, e.scope_path) == "waits") ++kinds[e.kind];
  }
  EXPECT_EQ(kinds[gpufl::SyncKind::StreamSynchronize], 3);
  EXPECT_EQ(kinds[gpufl::SyncKind::EventSynchronize], 1);
  EXPECT_EQ(kinds[gpufl::SyncKind::ContextSynchronize], 1);
}

// enable_memory_events: a scoped cudaMalloc/cudaFree pair and a pinned host allocation, with sizes.
TEST(TraceIntegration, MemoryEventsWhenAskedFor) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no GPU";
  const std::string prefix = "trace_memory_events";
  for (const char* ch : {".device.log", ".scope.log", ".system.log"})
    std::remove((prefix + ch).c_str());
  gpufl::InitOptions opts;
  opts.app_name = "trace_memory_events";
  opts.log_path = prefix;
  opts.system_sample_rate_ms = 0;
  opts.enable_memory_events = true;
  ASSERT_TRUE(gpufl::init(opts));
  const size_t device_bytes = size_t{3} << 20, host_bytes = size_t{1} << 20;
  GFL_SCOPE("allocs") {
    void* d = nullptr;
    void* h = nullptr;
    ASSERT_EQ(cudaMalloc(&d, device_bytes), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, host_bytes), cudaSuccess);
    cudaFree(d);
    cudaFreeHost(h);
  }
  gpufl::shutdown();

  Collected c;
  gpufl::log::ReadResult r = gpufl::log::readPrefix(prefix, {}, c);
  ASSERT_TRUE(r.any_readable);
  for (const auto& w : r.warnings) ADD_FAILURE() << w.file << ":" << w.line << ": " << w.message;
  int device_allocs = 0, device_frees = 0, pinned_allocs = 0;
  for (const auto& e : c.memory) {
    if (pathName(c, e.scope_path) != "allocs") continue;
    if (e.memory_kind == "device" && e.is_free)
      ++device_frees;  // a release's size is not relied on
    if (e.memory_kind == "device" && !e.is_free && e.bytes == device_bytes) ++device_allocs;
    if (e.memory_kind == "pinned" && !e.is_free && e.bytes == host_bytes) ++pinned_allocs;
  }
  EXPECT_EQ(device_allocs, 1);
  EXPECT_EQ(device_frees, 1);
  EXPECT_EQ(pinned_allocs, 1);
}

}  // namespace
