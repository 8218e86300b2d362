// The environment `gpufl trace` gives the program it runs: the injection library for CUDA (and for
// NVTX, see src/inject/nvtx_forward.cpp) and the GPUFL_* options the injected session reads
// (src/runtime/options_env.hpp). A pure function of the request and of gpufl's own environment, so
// tests check it without starting a process.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace gpufl::cli {

struct TraceEnvRequest {
  std::string inject_lib;  // libgpufl_inject.so
  std::string prefix;      // GPUFL_LOG_PATH
  std::string app_name;
  std::string engine = "None";
  int sample_rate_ms = 100;
  bool debug = false;
  bool stack = false;
  bool nvtx = true;     // false: --no-nvtx
  bool light = false;   // --light: PC sampling's lighter preset (GPUFL_PC_SAMPLING_PRESET=light)
  bool sync = false;    // --sync: host waits as records (GPUFL_SYNC_EVENTS=1)
  bool memory = false;  // --memory: allocations and releases as records (GPUFL_MEMORY_EVENTS=1)
  bool kernel_ranges =
      false;  // --kernel-ranges: a range per kernel launch (GPUFL_RANGE_PER_KERNEL=1)
  bool kernel_blocks = false;  // --kernel-blocks: kernel_block lines (GPUFL_KERNEL_BLOCKS=1)
};

using GetEnv = std::function<const char*(const char* name)>;

// The variables to set, in order (GPUFL_ROOT_PID, the traced program's own pid, is the child's to
// add). NVTX_INJECTION64_PATH names the injection library unless NVTX is
// off (--no-nvtx, or GPUFL_NVTX=0/false/no/off in gpufl's environment, which the program inherits)
// or the variable is already set (another tool's choice is kept; the session's `nvtx` note then
// says whether ranges can reach gpufl).
std::vector<std::pair<std::string, std::string>> traceEnvironment(const TraceEnvRequest& request,
                                                                  const GetEnv& getenv);

}  // namespace gpufl::cli
