#include "trace_env.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpufl::cli {
namespace {

GetEnv fakeEnv(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

std::map<std::string, std::string> asMap(
    const std::vector<std::pair<std::string, std::string>>& v) {
  return {v.begin(), v.end()};
}

TraceEnvRequest request() {
  TraceEnvRequest r;
  r.inject_lib = "/opt/gpufl/lib/libgpufl_inject.so";
  r.prefix = "./run";
  r.app_name = "python3";
  r.engine = "PcSampling";
  r.sample_rate_ms = 50;
  return r;
}

TEST(TraceEnv, InjectsCudaAndNvtxAndPassesTheOptions) {
  auto env = asMap(traceEnvironment(request(), fakeEnv({})));
  EXPECT_EQ(env["CUDA_INJECTION64_PATH"], "/opt/gpufl/lib/libgpufl_inject.so");
  EXPECT_EQ(env["NVTX_INJECTION64_PATH"], "/opt/gpufl/lib/libgpufl_inject.so");
  EXPECT_EQ(env["GPUFL_LOG_PATH"], "./run");
  EXPECT_EQ(env["GPUFL_APP_NAME"], "python3");
  EXPECT_EQ(env["GPUFL_ENGINE"], "PcSampling");
  EXPECT_EQ(env["GPUFL_SAMPLE_RATE_MS"], "50");
  EXPECT_EQ(env.count("GPUFL_DEBUG"), 0u);
  EXPECT_EQ(env.count("GPUFL_NVTX"), 0u);
}

TEST(TraceEnv, NoNvtxFlagOrGpuflNvtxFalseLeavesNvtxAlone) {
  TraceEnvRequest r = request();
  r.nvtx = false;
  auto env = asMap(traceEnvironment(r, fakeEnv({})));
  EXPECT_EQ(env.count("NVTX_INJECTION64_PATH"), 0u);
  EXPECT_EQ(env["GPUFL_NVTX"], "0");  // the session notes nvtx off
  for (const char* off : {"0", "false", " OFF ", "No"}) {
    env = asMap(traceEnvironment(request(), fakeEnv({{"GPUFL_NVTX", off}})));
    EXPECT_EQ(env.count("NVTX_INJECTION64_PATH"), 0u) << off;
  }
  env = asMap(traceEnvironment(request(), fakeEnv({{"GPUFL_NVTX", "1"}})));
  EXPECT_EQ(env.count("NVTX_INJECTION64_PATH"), 1u);
}

TEST(TraceEnv, AnExistingNvtxInjectionIsKept) {
  auto env = asMap(traceEnvironment(
      request(), fakeEnv({{"NVTX_INJECTION64_PATH", "/opt/nsight/libToolsInjection64.so"}})));
  EXPECT_EQ(env.count("NVTX_INJECTION64_PATH"), 0u);  // not overwritten
  env = asMap(traceEnvironment(request(), fakeEnv({{"NVTX_INJECTION64_PATH", ""}})));
  EXPECT_EQ(env["NVTX_INJECTION64_PATH"], "/opt/gpufl/lib/libgpufl_inject.so");  // empty = unset
}

TEST(TraceEnv, DebugAndStackFlags) {
  TraceEnvRequest r = request();
  r.debug = true;
  r.stack = true;
  auto env = asMap(traceEnvironment(r, GetEnv{}));
  EXPECT_EQ(env["GPUFL_DEBUG"], "1");
  EXPECT_EQ(env["GPUFL_STACK_TRACE"], "1");
  EXPECT_EQ(env.count("GPUFL_PC_SAMPLING_PRESET"), 0u);
  r.light = true;
  env = asMap(traceEnvironment(r, GetEnv{}));
  EXPECT_EQ(env["GPUFL_PC_SAMPLING_PRESET"], "light");
  EXPECT_EQ(env.count("GPUFL_SYNC_EVENTS"), 0u);
  r.sync = true;
  env = asMap(traceEnvironment(r, GetEnv{}));
  EXPECT_EQ(env["GPUFL_SYNC_EVENTS"], "1");
  EXPECT_EQ(env.count("GPUFL_MEMORY_EVENTS"), 0u);
  r.memory = true;
  env = asMap(traceEnvironment(r, GetEnv{}));
  EXPECT_EQ(env["GPUFL_MEMORY_EVENTS"], "1");
  EXPECT_EQ(env.count("GPUFL_RANGE_PER_KERNEL"), 0u);
  r.kernel_ranges = true;
  env = asMap(traceEnvironment(r, GetEnv{}));
  EXPECT_EQ(env["GPUFL_RANGE_PER_KERNEL"], "1");
}

}  // namespace
}  // namespace gpufl::cli
