// What gpufl gives up when its own cost crosses a limit the user set: the decision only, fed one
// cost sample per health period (runtime/health_reporter.cpp acts on it; tests feed a synthetic
// signal). The ladder, one rung per decision:
//   1. pause the deep engines (the costliest: instrumented launches, PC sampling, SASS metrics);
//   2. slow system sampling down, twice as slow at each rung, up to kMaxSamplingSlowdown;
//   3. the floor: nothing left to give up; tracing itself stays on, and what the buffers cannot
//      hold is dropped and counted, as always.
// A rung is skipped when the session has nothing to give up there (no deep engine, no sampling).
// A step is taken only after `periods_over` periods in a row over a limit (one spike, e.g. the
// first period's start-up, is not enough), and the count starts again after each step, so a step
// has time to show its effect. gpufl never steps back up within a session: a cost that came back
// under the limit after a step is the step working.
#pragma once

#include <cstdint>
#include <string>

namespace gpufl::core {

struct StepDownLimits {
  double max_cpu_pct = 0;         // gpufl's threads, % of one core over a period; 0: no limit
  uint64_t max_memory_bytes = 0;  // what gpufl's buffers hold; 0: no limit
  int periods_over = 2;
  bool deep_engines = false;  // the session runs a deep engine
  bool sampling = false;      // the session samples the GPU or host periodically
};

struct CostSample {
  double cpu_pct = 0;
  uint64_t memory_bytes = 0;
};

enum class StepAction : uint8_t { None, PauseDeepEngines, SlowSampling, Floor };

struct StepDecision {
  StepAction action = StepAction::None;
  int sampling_slowdown = 1;  // the sampling period's multiplier after this step
  std::string reason;         // which limit was crossed and by how much (empty for None)
};

class StepDown {
 public:
  static constexpr int kMaxSamplingSlowdown = 8;

  explicit StepDown(const StepDownLimits& limits) : limits_(limits) {}

  bool limited() const { return limits_.max_cpu_pct > 0 || limits_.max_memory_bytes > 0; }
  // One period's cost; a decision to act on (None most of the time). Floor is returned once.
  StepDecision observe(const CostSample& cost);

  bool deepPaused() const { return deep_paused_; }
  int samplingSlowdown() const { return slowdown_; }
  bool atFloor() const { return floor_; }

 private:
  StepDownLimits limits_;
  int over_ = 0;  // periods in a row over a limit
  bool deep_paused_ = false;
  int slowdown_ = 1;
  bool floor_ = false;
};

}  // namespace gpufl::core
