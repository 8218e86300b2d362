#include "core/step_down.hpp"

#include <cstdio>

namespace gpufl::core {

StepDecision StepDown::observe(const CostSample& cost) {
  StepDecision d;
  if (!limited() || floor_) return d;
  char reason[160] = "";
  if (limits_.max_cpu_pct > 0 && cost.cpu_pct > limits_.max_cpu_pct) {
    std::snprintf(reason, sizeof reason, "gpufl's CPU %.1f%% of a core is above max_cpu_pct %.1f%%",
                  cost.cpu_pct, limits_.max_cpu_pct);
  } else if (limits_.max_memory_bytes > 0 && cost.memory_bytes > limits_.max_memory_bytes) {
    std::snprintf(reason, sizeof reason,
                  "gpufl's buffers hold %.1f MiB, above max_memory_mb %.1f MiB",
                  static_cast<double>(cost.memory_bytes) / (1 << 20),
                  static_cast<double>(limits_.max_memory_bytes) / (1 << 20));
  } else {
    over_ = 0;
    return d;
  }
  if (++over_ < limits_.periods_over) return d;
  over_ = 0;
  d.reason = reason;
  if (limits_.deep_engines && !deep_paused_) {
    deep_paused_ = true;
    d.action = StepAction::PauseDeepEngines;
  } else if (limits_.sampling && slowdown_ < kMaxSamplingSlowdown) {
    slowdown_ *= 2;
    d.action = StepAction::SlowSampling;
  } else {
    floor_ = true;
    d.action = StepAction::Floor;
  }
  d.sampling_slowdown = slowdown_;
  return d;
}

}  // namespace gpufl::core
