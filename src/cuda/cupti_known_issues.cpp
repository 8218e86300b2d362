#include "cuda/cupti_known_issues.hpp"

namespace gpufl::cuda {
namespace {

// Versions from CUDA 13.0 on are xxyyzz; earlier ones are small integers (all older than any fix
// below).
constexpr uint32_t kFirst13 = 130000;
constexpr uint32_t kCpuGrowthFixed = 130401;         // CUDA 13.4 Update 1
constexpr uint32_t kGraphCorrelationFixed = 130101;  // CUDA 13.1 Update 1

bool before(uint32_t version, uint32_t fixed) {
  return version < kFirst13 || version < fixed;
}

}  // namespace

std::string cuptiReleaseName(uint32_t api_version) {
  if (api_version == 0) return "unknown";
  if (api_version < kFirst13) return "API " + std::to_string(api_version);
  const uint32_t major = api_version / 10000, minor = api_version / 100 % 100,
                 update = api_version % 100;
  std::string name = std::to_string(major) + "." + std::to_string(minor);
  if (update > 0) name += " Update " + std::to_string(update);
  return name;
}

std::vector<std::string> cuptiKnownIssues(uint32_t api_version, int sessions) {
  std::vector<std::string> issues;
  if (api_version != 0 && before(api_version, kCpuGrowthFixed)) {
    issues.push_back(
        "CUPTI " + cuptiReleaseName(api_version) +
        ": its CPU use grows the longer activity tracing runs (fixed in CUDA 13.4 Update 1); "
        "watch cpu_ns.cupti over days");
  }
  if (sessions > 1) {
    issues.push_back(
        "the timestamp callback was registered again (session " + std::to_string(sessions) +
        " in this process): records collected across the change may carry the previous clock, "
        "and a peer tool saw kernel times shift by about 1e14 ns; the clock checks watch for it");
    if (api_version != 0 && before(api_version, kGraphCorrelationFixed)) {
      issues.push_back("CUPTI " + cuptiReleaseName(api_version) +
                       ": after the first profiling session in a process, correlation ids of "
                       "cudaGraphLaunch and its kernels are wrong (fixed in CUDA 13.1 Update 1): "
                       "graph kernels may be attributed to the wrong scope");
    }
  }
  return issues;
}

}  // namespace gpufl::cuda
