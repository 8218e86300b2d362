// The step-down ladder fed a synthetic cost signal: nothing without limits or below them, a single
// spike ignored, two periods over taking one rung (deep engines, then sampling x2, x4, x8, then the
// floor, said once), rungs the session lacks skipped, the memory limit alike.
#include "core/step_down.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gpufl::core {
namespace {

std::vector<StepAction> feed(StepDown& s, const std::vector<double>& cpu) {
  std::vector<StepAction> acted;
  for (double pct : cpu) {
    const StepDecision d = s.observe({pct, 0});
    if (d.action != StepAction::None) acted.push_back(d.action);
  }
  return acted;
}

TEST(StepDown, NoLimitNeverActs) {
  StepDown s({.deep_engines = true, .sampling = true});
  EXPECT_FALSE(s.limited());
  EXPECT_TRUE(feed(s, std::vector<double>(20, 500.0)).empty());
}

TEST(StepDown, BelowTheLimitOrASingleSpikeDoesNotAct) {
  StepDown s({.max_cpu_pct = 5, .deep_engines = true, .sampling = true});
  EXPECT_TRUE(feed(s, {1, 2, 30, 1, 4.9, 30, 2, 5.0}).empty());
  EXPECT_FALSE(s.deepPaused());
}

TEST(StepDown, EachRungNeedsTwoPeriodsOverDeepEnginesFirstThenSamplingThenTheFloorOnce) {
  StepDown s({.max_cpu_pct = 5, .deep_engines = true, .sampling = true});
  const StepDecision first = s.observe({12.5, 0});
  EXPECT_EQ(first.action, StepAction::None);
  const StepDecision paused = s.observe({12.5, 0});
  EXPECT_EQ(paused.action, StepAction::PauseDeepEngines);
  EXPECT_EQ(paused.reason, "gpufl's CPU 12.5% of a core is above max_cpu_pct 5.0%");
  EXPECT_TRUE(s.deepPaused());
  // Still over: sampling x2, x4, x8, then nothing left.
  const std::vector<StepAction> rest = feed(s, std::vector<double>(12, 9.0));
  EXPECT_EQ(rest, (std::vector<StepAction>{StepAction::SlowSampling, StepAction::SlowSampling,
                                           StepAction::SlowSampling, StepAction::Floor}));
  EXPECT_EQ(s.samplingSlowdown(), StepDown::kMaxSamplingSlowdown);
  EXPECT_TRUE(s.atFloor());
  EXPECT_TRUE(feed(s, std::vector<double>(10, 50.0)).empty());  // the floor is said once
}

TEST(StepDown, ACostThatFallsBackAfterAStepStopsTheLadderThere) {
  StepDown s({.max_cpu_pct = 5, .deep_engines = true, .sampling = true});
  EXPECT_EQ(feed(s, {8, 8, 3, 3, 3, 8, 2, 8, 2}),
            (std::vector<StepAction>{StepAction::PauseDeepEngines}));
  EXPECT_EQ(s.samplingSlowdown(), 1);
}

TEST(StepDown, RungsTheSessionLacksAreSkipped) {
  StepDown sampling_only({.max_cpu_pct = 5, .sampling = true});
  EXPECT_EQ(feed(sampling_only, {9, 9}), (std::vector<StepAction>{StepAction::SlowSampling}));
  StepDown nothing({.max_cpu_pct = 5});
  EXPECT_EQ(feed(nothing, {9, 9, 9, 9}), (std::vector<StepAction>{StepAction::Floor}));
}

TEST(StepDown, TheMemoryLimitStepsDownAlike) {
  StepDown s({.max_memory_bytes = 64ull << 20, .deep_engines = true});
  EXPECT_EQ(s.observe({0, 100ull << 20}).action, StepAction::None);
  const StepDecision d = s.observe({0, 100ull << 20});
  EXPECT_EQ(d.action, StepAction::PauseDeepEngines);
  EXPECT_EQ(d.reason, "gpufl's buffers hold 100.0 MiB, above max_memory_mb 64.0 MiB");
}

}  // namespace
}  // namespace gpufl::core
