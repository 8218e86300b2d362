// The range profiler's metric plan: which of the wanted metrics one pass can collect together,
// asked of CUPTI's profiler host API (cupti_profiler_host.h; no GPU needed, the CPU tests use
// GH100). On the H200 a config needing several passes gave NaN under user replay, so the engine
// (range_profiler_engine.hpp) collects one single-pass group per range and lets groups take turns.
#pragma once

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpufl::cuda {

// The default metrics: SM throughput, L1 and L2 hit rates, DRAM bytes, duration (bandwidth), tensor
// pipe use (HMMA/HGMMA on sm_90) and achieved occupancy. GPUFL_RANGE_METRICS (comma-separated)
// replaces it.
std::vector<std::string> defaultRangeMetrics();

struct RangeMetricPlan {
  std::vector<std::vector<std::string>> groups;  // each collectable in one pass
  struct Ratio {                                 // name = 100 * part / (part + rest), %
    std::string name, part, rest;
  };
  std::vector<Ratio> ratios;
  std::vector<std::string> unavailable;  // with why: "name (8 passes)"
};

// Splits `wanted` into single-pass groups. `passes(metrics)` is the number of passes the chip needs
// for those metrics together, 0 when one is not a metric of the chip.
RangeMetricPlan planRangeMetrics(
    const std::vector<std::string>& wanted,
    const std::function<size_t(const std::vector<std::string>&)>& passes);

// cuptiProfilerHostGetNumOfPasses for `metrics` on `chip` (works without a GPU); 0 when invalid.
size_t hostPassCount(const std::string& chip, const std::vector<std::string>& metrics);

// A host object configured with `metrics` for `chip`, its config image in *config; nullptr (and
// *error) when CUPTI refuses. Free with freeHost.
CUpti_Profiler_Host_Object* hostObject(const std::string& chip,
                                       const std::vector<const char*>& metrics,
                                       std::vector<uint8_t>* config, CUptiResult* error);
void freeHost(CUpti_Profiler_Host_Object* host);
// Pointers into `names` (which must outlive them), as CUPTI's metric name arrays want.
std::vector<const char*> cStrings(const std::vector<std::string>& names);

}  // namespace gpufl::cuda
