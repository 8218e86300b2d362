// Which range-profiler metrics can be collected together, from CUPTI's profiler host API (works
// without a GPU). range_metric_plan.hpp says why the plan looks the way it does.
#include "cuda/range_metric_plan.hpp"

#include <cupti_profiler_host.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "cuda/cupti_api.hpp"
#include "cuda/deep_support.hpp"

namespace gpufl::cuda {
namespace {

constexpr const char* kTime = "gpu__time_duration.sum";

// Metrics that need two passes on their own, as a ratio of two single-pass counters.
struct RatioDef {
  const char* name;
  const char* part;
  const char* rest;
};
constexpr RatioDef kRatios[] = {
    {"lts__t_sector_hit_rate.pct", "lts__t_sectors_lookup_hit.sum",
     "lts__t_sectors_lookup_miss.sum"},
};

}  // namespace

CUpti_Profiler_Host_Object* hostObject(const std::string& chip,
                                       const std::vector<const char*>& metrics,
                                       std::vector<uint8_t>* config, CUptiResult* error) {
  auto init = cuptiParams<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  if ((*error = cupti::cuptiProfilerHostInitialize(&init)) != CUPTI_SUCCESS) return nullptr;
  auto add = cuptiParams<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = init.pHostObject;
  add.ppMetricNames = const_cast<const char**>(metrics.data());
  add.numMetrics = metrics.size();
  auto size = cuptiParams<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = init.pHostObject;
  auto image = cuptiParams<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = init.pHostObject;
  if ((*error = cupti::cuptiProfilerHostConfigAddMetrics(&add)) == CUPTI_SUCCESS &&
      (*error = cupti::cuptiProfilerHostGetConfigImageSize(&size)) == CUPTI_SUCCESS) {
    config->assign(size.configImageSize, 0);
    image.configImageSize = config->size();
    image.pConfigImage = config->data();
    if ((*error = cupti::cuptiProfilerHostGetConfigImage(&image)) == CUPTI_SUCCESS)
      return init.pHostObject;
  }
  freeHost(init.pHostObject);
  return nullptr;
}

void freeHost(CUpti_Profiler_Host_Object* host) {
  if (host == nullptr) return;
  auto deinit = cuptiParams<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  deinit.pHostObject = host;
  cupti::cuptiProfilerHostDeinitialize(&deinit);
}

std::vector<const char*> cStrings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  for (const std::string& n : names) out.push_back(n.c_str());
  return out;
}

std::vector<std::string> defaultRangeMetrics() {
  if (const char* env = std::getenv("GPUFL_RANGE_METRICS"); env && *env) {
    std::vector<std::string> metrics;
    std::stringstream list(env);
    for (std::string m; std::getline(list, m, ',');)
      if (!m.empty()) metrics.push_back(m);
    return metrics;
  }
  return {"gpu__time_duration.sum",
          "dram__bytes_read.sum",
          "dram__bytes_write.sum",
          "sm__warps_active.avg.pct_of_peak_sustained_active",
          "l1tex__t_sector_hit_rate.pct",
          "lts__t_sector_hit_rate.pct",
          "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
          "sm__throughput.avg.pct_of_peak_sustained_elapsed"};
}

size_t hostPassCount(const std::string& chip, const std::vector<std::string>& metrics) {
  std::vector<uint8_t> config;
  CUptiResult error = CUPTI_SUCCESS;
  CUpti_Profiler_Host_Object* host = hostObject(chip, cStrings(metrics), &config, &error);
  if (host == nullptr) return 0;
  auto passes = cuptiParams<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = config.size();
  passes.pConfigImage = config.data();
  const bool ok = cupti::cuptiProfilerHostGetNumOfPasses(&passes) == CUPTI_SUCCESS;
  freeHost(host);
  return ok ? passes.numOfPasses : 0;
}

RangeMetricPlan planRangeMetrics(
    const std::vector<std::string>& wanted,
    const std::function<size_t(const std::vector<std::string>&)>& passes) {
  RangeMetricPlan plan;
  std::vector<std::string> singles;
  auto addSingle = [&](const std::string& m) {
    if (std::find(singles.begin(), singles.end(), m) == singles.end()) singles.push_back(m);
  };
  for (const std::string& m : wanted) {
    const size_t p = passes({m});
    if (p == 1) {
      addSingle(m);
      continue;
    }
    const RatioDef* ratio = nullptr;
    for (const auto& r : kRatios) ratio = (m == r.name) ? &r : ratio;
    if (ratio && passes({ratio->part}) == 1 && passes({ratio->rest}) == 1) {
      addSingle(ratio->part);
      addSingle(ratio->rest);
      plan.ratios.push_back({ratio->name, ratio->part, ratio->rest});
    } else {
      plan.unavailable.push_back(
          m + (p == 0 ? " (not a metric of this chip)" : " (" + std::to_string(p) + " passes)"));
    }
  }
  const bool timed = std::find(singles.begin(), singles.end(), kTime) != singles.end();
  for (const std::string& m : singles) {
    if (m == kTime) continue;
    bool placed = false;
    for (auto& group : plan.groups) {
      std::vector<std::string> candidate = group;
      candidate.push_back(m);
      if (passes(candidate) == 1) {
        group = std::move(candidate);
        placed = true;
        break;
      }
    }
    if (placed) continue;
    std::vector<std::string> group;
    if (timed && passes({kTime, m}) == 1) group.push_back(kTime);
    group.push_back(m);
    plan.groups.push_back(std::move(group));
  }
  if (plan.groups.empty() && timed) plan.groups.push_back({kTime});
  return plan;
}

}  // namespace gpufl::cuda
