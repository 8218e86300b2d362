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

// Each flag sets its variable, and only when given.
TEST(TraceEnv, FlagsSetTheirVariables) {
  struct Flag {
    bool TraceEnvRequest::*member;
    const char* variable;
    const char* value;
  };
  const Flag flags[] = {
      {&TraceEnvRequest::debug, "GPUFL_DEBUG", "1"},
      {&TraceEnvRequest::stack, "GPUFL_STACK_TRACE", "1"},
      {&TraceEnvRequest::light, "GPUFL_PC_SAMPLING_PRESET", "light"},
      {&TraceEnvRequest::sync, "GPUFL_SYNC_EVENTS", "1"},
      {&TraceEnvRequest::memory, "GPUFL_MEMORY_EVENTS", "1"},
      {&TraceEnvRequest::kernel_ranges, "GPUFL_RANGE_PER_KERNEL", "1"},
      {&TraceEnvRequest::kernel_blocks, "GPUFL_KERNEL_BLOCKS", "1"},
  };
  for (const Flag& f : flags) {
    TraceEnvRequest r = request();
    EXPECT_EQ(asMap(traceEnvironment(r, GetEnv{})).count(f.variable), 0u) << f.variable;
    r.*f.member = true;
    EXPECT_EQ(asMap(traceEnvironment(r, GetEnv{}))[f.variable], f.value) << f.variable;
  }
}

}  // namespace
}  // namespace gpufl::cli
