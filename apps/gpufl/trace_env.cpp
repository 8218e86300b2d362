#include "trace_env.hpp"

#include <cctype>
#include <string_view>

namespace gpufl::cli {
namespace {

// The false spellings of the runtime's parseBool (options_env.hpp); anything else, the session
// itself judges (and notes when it does not parse).
bool isFalse(const char* value) {
  if (value == nullptr) return false;
  std::string v;
  for (const char* c = value; *c != '\0'; ++c)
    if (!std::isspace(static_cast<unsigned char>(*c)))
      v.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*c))));
  return v == "0" || v == "false" || v == "no" || v == "off";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> traceEnvironment(const TraceEnvRequest& r,
                                                                  const GetEnv& getenv) {
  auto get = [&](const char* name) -> const char* { return getenv ? getenv(name) : nullptr; };
  std::vector<std::pair<std::string, std::string>> env = {
      {"CUDA_INJECTION64_PATH", r.inject_lib},
      {"GPUFL_LOG_PATH", r.prefix},
      {"GPUFL_APP_NAME", r.app_name},
      {"GPUFL_ENGINE", r.engine},
      {"GPUFL_SAMPLE_RATE_MS", std::to_string(r.sample_rate_ms)},
  };
  if (r.debug) env.emplace_back("GPUFL_DEBUG", "1");
  if (r.stack) env.emplace_back("GPUFL_STACK_TRACE", "1");
  if (r.light) env.emplace_back("GPUFL_PC_SAMPLING_PRESET", "light");
  if (r.sync) env.emplace_back("GPUFL_SYNC_EVENTS", "1");
  if (r.memory) env.emplace_back("GPUFL_MEMORY_EVENTS", "1");
  if (r.kernel_ranges) env.emplace_back("GPUFL_RANGE_PER_KERNEL", "1");
  if (r.kernel_blocks) env.emplace_back("GPUFL_KERNEL_BLOCKS", "1");
  if (!r.nvtx) {
    env.emplace_back("GPUFL_NVTX", "0");
  } else if (!isFalse(get("GPUFL_NVTX"))) {
    // Set before the program starts, so every library's first NVTX call (NVTX binds its tool then,
    // once) already finds gpufl; a process-wide variable, children inherit it like the CUDA one.
    const char* current = get("NVTX_INJECTION64_PATH");
    if (current == nullptr || *current == '\0')
      env.emplace_back("NVTX_INJECTION64_PATH", r.inject_lib);
  }
  return env;
}

}  // namespace gpufl::cli
