// On a GPU: NVTX push/pop ranges become scopes, and kernels launched inside get the range's path,
// in both modes.
//   Linked: gpufl::init before the process's first NVTX call (init points NVTX_INJECTION64_PATH at
//           libcupti), then ranges of the default domain, of a named domain with a registered
//           string, nested with GFL_SCOPE, unbalanced pops, start/end ranges, and another thread.
//   Traced: `gpufl trace -- nvtx_integration_test --gtest_filter=NvtxTraced.Workload` (ctest runs
//   it
//           as nvtx_trace_workload), then NvtxTraced.Check reads that log. The workload makes its
//           first NVTX call before CUDA initialises, i.e. before gpufl subscribes: that push is not
//           seen, its pop must be ignored, and later ranges must still arrive.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "gpufl/gpufl.hpp"
#include "log/reader.hpp"

namespace {

__global__ void addOne(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

constexpr int kN = 1 << 16;

void launch(float* d, int times = 1) {
  for (int i = 0; i < times; ++i) addOne<<<kN / 256, 256>>>(d, kN);
}

struct Collected : gpufl::EventVisitor {
  std::map<uint32_t, gpufl::ScopePath> paths;
  std::map<std::string, int> kernels_per_scope;  // "a/b" -> count ("" = no scope)
  std::map<std::string, std::string> tag_of;     // scope name -> tag
  std::map<std::string, gpufl::Note> notes;      // by feature (last wins)
  std::vector<gpufl::KernelEvent> kernels;
  void onScopePath(const gpufl::ScopePath& p) override { paths[p.id] = p; }
  void onKernel(const gpufl::KernelEvent& k) override { kernels.push_back(k); }
  void onScopeBegin(const gpufl::ScopeBegin& b) override { tag_of[b.name] = b.tag; }
  void onNote(const gpufl::Note& n) override { notes[n.feature] = n; }
  std::string pathName(uint32_t id) const {
    std::string out;
    while (id != 0 && paths.count(id)) {
      out = paths.at(id).name + (out.empty() ? "" : "/" + out);
      id = paths.at(id).parent;
    }
    return out;
  }
  void finish() {
    for (const auto& k : kernels) kernels_per_scope[pathName(k.scope_path)]++;
  }
};

Collected readLog(const std::string& prefix) {
  Collected c;
  gpufl::log::ReadResult r = gpufl::log::readPrefix(prefix, {}, c);
  EXPECT_TRUE(r.any_readable) << prefix;
  for (const auto& w : r.warnings) ADD_FAILURE() << w.file << ":" << w.line << ": " << w.message;
  c.finish();
  return c;
}

std::string dump(const Collected& c) {
  std::string s;
  for (const auto& [scope, n] : c.kernels_per_scope)
    s += "  '" + scope + "': " + std::to_string(n) + "\n";
  for (const auto& [f, n] : c.notes) s += "  note " + f + " " + n.status + ": " + n.reason + "\n";
  return s;
}

bool haveGpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(NvtxLinked, RangesAreScopes) {
  if (std::getenv("GPUFL_INJECTED") != nullptr) GTEST_SKIP() << "under gpufl trace";
  // No NVTX call before init: init must be the one choosing NVTX's tool.
  const std::string prefix = "nvtx_linked";
  for (const char* ch : {".device.log", ".scope.log", ".system.log"})
    std::remove((prefix + ch).c_str());
  gpufl::InitOptions opts;
  opts.app_name = "nvtx_linked";
  opts.log_path = prefix;
  opts.system_sample_rate_ms = 0;
  opts.enable_nvtx = true;  // off by default when linked
  if (!haveGpu()) GTEST_SKIP() << "no GPU";
  ASSERT_TRUE(gpufl::init(opts)) << "GPU profiling did not start";
  ASSERT_NE(std::getenv("NVTX_INJECTION64_PATH"), nullptr) << "init did not point NVTX at CUPTI";

  float* d = nullptr;
  cudaMalloc(&d, kN * sizeof(float));
  nvtxRangePushA("fwd");
  launch(d, 2);
  nvtxRangePushA("linear");
  launch(d, 3);
  nvtxRangePop();
  nvtxRangePop();

  GFL_SCOPE("user") {
    nvtxRangePushA("nv");
    launch(d, 1);
    nvtxRangePop();
    nvtxRangePop();  // unbalanced: must not end "user"
    launch(d, 4);
  }

  nvtxDomainHandle_t domain = nvtxDomainCreateA("mylib");
  nvtxStringHandle_t reg = nvtxDomainRegisterStringA(domain, "registered");
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = reg;
  nvtxDomainRangePushEx(domain, &attr);
  launch(d, 5);
  nvtxDomainRangePop(domain);

  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = "ex";
  nvtxRangePushEx(&attr);
  launch(d, 6);
  nvtxRangePop();

  nvtxRangeId_t id = nvtxRangeStartA("start_end");  // not followed: no scope
  launch(d, 7);
  nvtxRangeEnd(id);

  std::thread worker([d] {
    nvtxRangePushA("worker");
    launch(d, 8);
    cudaDeviceSynchronize();
    nvtxRangePop();
  });
  worker.join();
  cudaDeviceSynchronize();
  cudaFree(d);
  gpufl::shutdown();

  Collected c = readLog(prefix);
  ASSERT_TRUE(c.notes.count("nvtx")) << dump(c);
  EXPECT_EQ(c.notes["nvtx"].status, "on") << c.notes["nvtx"].reason;
  EXPECT_EQ(c.kernels_per_scope["fwd"], 2) << dump(c);
  EXPECT_EQ(c.kernels_per_scope["fwd/linear"], 3) << dump(c);
  EXPECT_EQ(c.kernels_per_scope["user/nv"], 1) << dump(c);
  EXPECT_EQ(c.kernels_per_scope["user"], 4) << dump(c);
  EXPECT_EQ(c.kernels_per_scope["registered"], 5) << dump(c);
  EXPECT_EQ(c.kernels_per_scope["ex"], 6) << dump(c);
  EXPECT_EQ(c.kernels_per_scope[""], 7) << dump(c);  // start/end ranges are not scopes
  EXPECT_EQ(c.kernels_per_scope["worker"], 8) << dump(c);
  EXPECT_EQ(c.tag_of["fwd"], "nvtx");
  EXPECT_EQ(c.tag_of["registered"], "nvtx:mylib");
  EXPECT_EQ(c.tag_of["user"], "");
}

// Run by ctest under `gpufl trace` (nvtx_trace_workload); skipped otherwise.
TEST(NvtxTraced, Workload) {
  if (std::getenv("GPUFL_INJECTED") == nullptr && std::getenv("CUDA_INJECTION64_PATH") == nullptr)
    GTEST_SKIP() << "run under gpufl trace";
  // A log of an earlier run would be read by Check if this one wrote nothing; nothing is open yet.
  if (const char* prefix = std::getenv("GPUFL_LOG_PATH"))
    for (const char* ch : {".device.log", ".scope.log", ".system.log"})
      std::remove((std::string(prefix) + ch).c_str());
  nvtxRangePushA("before_cuda");  // NVTX binds its tool now; gpufl starts only with CUDA below
  float* d = nullptr;
  cudaMalloc(&d, kN * sizeof(float));  // CUDA initialises: the injected session starts
  launch(d, 1);                        // its push was not seen: no scope
  nvtxRangePop();                      // ignored
  nvtxRangePushA("traced");
  launch(d, 2);
  nvtxRangePushA("inner");
  launch(d, 3);
  nvtxRangePop();
  nvtxRangePop();
  cudaDeviceSynchronize();
  cudaFree(d);
}

// Reads what Workload wrote (ctest: nvtx_trace_check, prefix in GPUFL_NVTX_TRACE_PREFIX).
TEST(NvtxTraced, Check) {
  const char* prefix = std::getenv("GPUFL_NVTX_TRACE_PREFIX");
  if (prefix == nullptr) GTEST_SKIP() << "GPUFL_NVTX_TRACE_PREFIX not set";
  if (!haveGpu()) GTEST_SKIP() << "no GPU";
  Collected c = readLog(prefix);
  ASSERT_TRUE(c.notes.count("nvtx")) << dump(c);
  EXPECT_EQ(c.notes["nvtx"].status, "on") << c.notes["nvtx"].reason;
  EXPECT_EQ(c.kernels_per_scope[""], 1) << dump(c);
  EXPECT_EQ(c.kernels_per_scope["traced"], 2)
      << "NVTX initialised before gpufl subscribed: later ranges did not arrive\n"
      << dump(c);
  EXPECT_EQ(c.kernels_per_scope["traced/inner"], 3) << dump(c);
}

}  // namespace
