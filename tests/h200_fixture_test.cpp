// The report on real sessions recorded on the H200 (tests/data/h200, written by scripts/gpu-run.sh): what the
// seeds promise must be there, with the numbers the hardware gave (and Nsight Compute agreed with).
#include <gtest/gtest.h>

#include <string>

#include "report/report.hpp"

namespace {

std::string reportOf(const std::string& name) {
  gpufl::report::ReportOptions options;
  options.generated_at = "pinned";
  auto out = gpufl::report::reportFromPrefix(std::string(GPUFL_TEST_DATA_DIR) + "/h200/" + name, "", options, false);
  EXPECT_TRUE(out.ok) << out.error;
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.front();
  return out.text;
}

void expectContains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "missing: " << needle;
}

TEST(H200Fixtures, CoalescingPairShowsTheSeedsSectorCounts) {
  std::string text = reportOf("memory_coalescing");
  expectContains(text, "GPU Device:           NVIDIA H200");
  expectContains(text, "SMs:                132");
  // Seed 03: 69,468,160 global sectors vs 10,518,528 ideal for row-per-thread; col-per-thread is ideal.
  expectContains(text, "Global Sectors:             69,468,160");
  expectContains(text, "Ideal Sectors:              10,518,528");
  expectContains(text, "Memory Efficiency:               15.1%");
  expectContains(text, "Memory Efficiency:              100.0%");
  expectContains(text, "durations include profiling");
}

TEST(H200Fixtures, DivergenceKernelsShowTheExpectedActiveThreads) {
  std::string text = reportOf("sass_divergence");
  expectContains(text, "32.0 / 32 (100.0%)");  // uniformWork
  expectContains(text, "16.3 / 32");           // branchByWarpLane, earlyExit
  expectContains(text, "8.2 / 32");            // branchByWarpQuad
}

TEST(H200Fixtures, SharedMemoryLimitedReductionAndItsFix) {
  std::string text = reportOf("occupancy_reduction");
  expectContains(text, "block_reduce_naive");
  expectContains(text, "block_reduce_optimized");
  expectContains(text, "Limiting Resource:  warps");
}

TEST(H200Fixtures, PyTorchTrainingLoopUnderGpuflTrace) {
  std::string text = reportOf("pytorch_train_trace");
  expectContains(text, "Memory Transfer Summary");
  expectContains(text, "Utilization:");
  expectContains(text, "Power:");
}

}  // namespace
