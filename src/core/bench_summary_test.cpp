// Benchmark statistics and warnings from made-up repetition times (no GPU).
#include "core/bench_summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace gpufl::core {
namespace {

bool hasWarning(const BenchmarkResult& r, const std::string& part) {
  return std::any_of(r.warnings.begin(), r.warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

// 1..n us, shuffled: the summary must not depend on order.
BenchSamples ramp(int n) {
  BenchSamples s;
  for (int i = n; i >= 1; --i) s.rep_ns.push_back(i * 1000.0);
  return s;
}

TEST(BenchSummary, PercentileInterpolatesBetweenRanks) {
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 10), 1.3);  // rank 0.3
  EXPECT_DOUBLE_EQ(percentile(v, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4);
  EXPECT_EQ(percentile({}, 50), 0);
}

TEST(BenchSummary, MedianAndSpreadOfTheRepetitions) {
  BenchmarkResult r;
  std::string error;
  ASSERT_TRUE(summarizeBench(ramp(11), r, &error)) << error;
  EXPECT_EQ(r.reps, 11u);
  EXPECT_EQ(r.median_ns, 6000);
  EXPECT_EQ(r.min_ns, 1000);
  EXPECT_EQ(r.max_ns, 11000);
  EXPECT_EQ(r.p10_ns, 2000);
  EXPECT_EQ(r.p90_ns, 10000);
  EXPECT_EQ(r.mean_ns, 6000);
  // p90/p10 = 5: far too wide.
  EXPECT_TRUE(hasWarning(r, "spread p90/p10 = 5.00 (p10 2.00 us, p90 10.0 us)")) << r.warnings[0];
}

TEST(BenchSummary, GraphRepetitionsAreDividedIntoOperations) {
  BenchSamples s;
  s.rep_ns = std::vector<double>(20, 100000.0);  // 100 us for 50 ops
  s.ops_per_rep = 50;
  s.launch_overhead_ns = 5000;  // 2 us per op is below it, but graph replay amortises the launch
  BenchmarkResult r;
  r.flops = 4e6;  // 4 MFLOP in 2 us = 2 TFLOP/s
  r.bytes = 8e3;  // 8 kB in 2 us = 4 GB/s
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_EQ(r.median_ns, 2000);
  EXPECT_EQ(r.ops_per_rep, 50u);
  EXPECT_DOUBLE_EQ(r.tflops, 2);
  EXPECT_DOUBLE_EQ(r.gbps, 4);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
}

TEST(BenchSummary, ShorterThanLaunchOverheadWarnsWithBothNumbers) {
  BenchSamples s;
  s.rep_ns = std::vector<double>(30, 2500.0);
  s.launch_overhead_ns = 4200;
  BenchmarkResult r;
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_TRUE(hasWarning(r, "median 2.50 us is shorter than the launch overhead (4.20 us)"));
  EXPECT_TRUE(hasWarning(r, "graph=True"));
  s.rep_ns = std::vector<double>(30, 5000.0);
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_TRUE(r.warnings.empty());  // and a second summary replaces the warnings of the first
}

TEST(BenchSummary, FewRepetitionsWarn) {
  BenchSamples s;
  s.rep_ns = {1000, 1000, 1000};
  BenchmarkResult r;
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_TRUE(hasWarning(r, "only 3 timed repetitions"));
}

TEST(BenchSummary, ThrottledClocksWarnWithTheClocksSeen) {
  BenchSamples s;
  s.rep_ns = std::vector<double>(20, 1e6);
  s.clk_sm_mhz = {1980, 1980, 1755};
  s.clk_sm_limit_mhz = 1980;
  BenchmarkResult r;
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_EQ(r.clk_sm_min_mhz, 1755);
  EXPECT_EQ(r.clk_sm_max_mhz, 1980);
  EXPECT_TRUE(hasWarning(r, "SM clock 1755..1980 MHz (max 1980 MHz)"));
  // Steady at the limit: no warning; an idle reason alone is not throttling.
  s.clk_sm_mhz = {1980, 1975};
  s.throttle_reasons = {"gpu_idle"};
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_TRUE(r.warnings.empty());
  s.throttle_reasons = {"sw_power_cap", "sw_power_cap"};
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_TRUE(hasWarning(r, "NVML reasons: sw_power_cap;"));
}

TEST(BenchSummary, SharedGpuWarnsNamingTheProcesses) {
  BenchSamples s;
  s.rep_ns = std::vector<double>(20, 1e6);
  s.other_processes = {"pid 4242 (python3)"};
  BenchmarkResult r;
  ASSERT_TRUE(summarizeBench(s, r, nullptr));
  EXPECT_TRUE(hasWarning(r, "GPU shared with 1 other process: pid 4242 (python3)"));
}

TEST(BenchSummary, NothingToSummariseIsAnError) {
  BenchmarkResult r;
  std::string error;
  EXPECT_FALSE(summarizeBench(BenchSamples{}, r, &error));
  EXPECT_EQ(error, "no timed repetition");
  BenchSamples s;
  s.rep_ns = {1000, NAN};
  EXPECT_FALSE(summarizeBench(s, r, &error));
  EXPECT_EQ(error, "repetition 1 has time nan ns");
  s.rep_ns = {1000};
  s.ops_per_rep = 0;
  EXPECT_FALSE(summarizeBench(s, r, &error));
}

}  // namespace
}  // namespace gpufl::core

#include "core/device_peaks.hpp"

namespace gpufl::core {
namespace {

TEST(DevicePeaks, LongestNameWinsAndDtypesHaveTheirNames) {
  const auto h200 = devicePeaks("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(peakTflops(*h200, "torch.bfloat16"), 989.4);
  EXPECT_DOUBLE_EQ(peakTflops(*h200, "fp32"), 67);
  EXPECT_DOUBLE_EQ(peakTflops(*h200, "TF32"), 494.7);
  EXPECT_EQ(peakTflops(*h200, "complex64"), 0);
  EXPECT_EQ(h200->gbps, 4800);
  const auto nvl = devicePeaks("NVIDIA H200 NVL");
  ASSERT_TRUE(nvl);
  EXPECT_EQ(nvl->name, "NVIDIA H200 NVL");
  EXPECT_FALSE(devicePeaks("NVIDIA GeForce GTX 1080"));
}

}  // namespace
}  // namespace gpufl::core
