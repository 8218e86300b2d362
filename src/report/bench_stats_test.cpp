// The Benchmarks section's figures and rendering, from hand-built benchmark records.
#include "report/sections/bench_stats.hpp"

#include <gtest/gtest.h>

#include "report/aggregate/report_builder.hpp"
#include "report/report.hpp"

namespace gpufl::report {
namespace {

BenchmarkResult at(const std::string& shape, double flops, double tflops) {
  BenchmarkResult b;
  b.name = "matmul";
  b.dtype = "bf16";
  b.shape = shape;
  b.flops = flops;
  b.tflops = tflops;
  b.median_ns = 1000;
  b.reps = 50;
  return b;
}

TEST(BenchStats, SpreadAndPercentOfPeak) {
  BenchmarkResult b;
  EXPECT_EQ(benchmarkSpread(b), 0);  // no p10: unknown, not "no spread"
  b.p10_ns = 200;
  b.p90_ns = 300;
  EXPECT_DOUBLE_EQ(benchmarkSpread(b), 1.5);
  EXPECT_DOUBLE_EQ(percentOfPeak(494.5, 989), 50);
  EXPECT_EQ(percentOfPeak(10, 0), 0);
}

TEST(BenchStats, SeriesFlattensAtTheSmallestSizeWithinTenPercentOfTheBest) {
  // Out of order on purpose: the series is ordered by work, not by record order.
  std::vector<BenchmarkResult> bs = {at("4096", 1.4e11, 700), at("256", 3.4e7, 20),
                                     at("1024", 2.1e9, 400), at("2048", 1.7e10, 640),
                                     at("8192", 1.1e12, 760)};
  BenchmarkResult other = at("1024", 2.1e9, 50);
  other.dtype = "fp32";  // another series with one size: not a series
  bs.push_back(other);
  const auto series = benchmarkSeries(bs);
  ASSERT_EQ(series.size(), 1u);
  const BenchmarkSeries& s = series[0];
  ASSERT_EQ(s.rows.size(), 5u);
  EXPECT_EQ(bs[s.rows.front()].shape, "256");
  EXPECT_EQ(bs[s.rows[s.best]].shape, "8192");
  // 0.9 * 760 = 684: 2048 (640) is below, 4096 (700) within.
  EXPECT_EQ(bs[s.rows[s.flattens]].shape, "4096");
}

TEST(BenchStats, OneSizeTimedTwiceIsNoSeries) {
  EXPECT_TRUE(benchmarkSeries({at("512", 2.7e8, 10), at("512", 2.7e8, 11)}).empty());
}

TEST(BenchStats, ReportHasABenchmarksSectionWithRatesAndWarnings) {
  ReportBuilder builder;
  BenchmarkResult b = at("4096x4096x4096", 1.37e11, 494.5);
  b.peak_tflops = 989;
  b.p10_ns = 270000;
  b.p90_ns = 290000;
  b.median_ns = 277900;
  b.method = "events";
  b.clk_sm_min_mhz = 1755;
  b.clk_sm_max_mhz = 1980;
  b.clk_sm_limit_mhz = 1980;
  b.warnings = {"clocks throttled: SM clock 1755..1980 MHz, max 1980"};
  builder.onBenchmark(b);
  builder.onBenchmark(at("1024x1024x1024", 2.1e9, 300));
  ReportOptions options;
  options.generated_at = "fixed";
  const Report r = builder.build();
  const std::string text = renderText(r, options);
  EXPECT_NE(text.find("  Benchmarks\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  matmul [4096x4096x4096] bf16\n"), std::string::npos) << text;
  EXPECT_NE(text.find("494.5 TFLOP/s (50.0% of 989.0 peak)"), std::string::npos) << text;
  EXPECT_NE(text.find("clocks SM 1755..1980 MHz (max 1980)"), std::string::npos) << text;
  EXPECT_NE(text.find("! clocks throttled: SM clock 1755..1980 MHz"), std::string::npos) << text;
  EXPECT_NE(text.find("flattens (within 10% of the best) from 4096x4096x4096"), std::string::npos)
      << text;
  const std::string json = renderJson(r, options);
  EXPECT_NE(json.find("\"tflops_pct_of_peak\": 50"), std::string::npos) << json;
  EXPECT_NE(json.find("\"clk_sm_limit_mhz\": 1980"), std::string::npos) << json;
  EXPECT_NE(json.find("\"flattens_at_shape\": \"4096x4096x4096\""), std::string::npos) << json;
}

TEST(BenchStats, NoBenchmarksNoSection) {
  ReportBuilder builder;
  ReportOptions options;
  options.generated_at = "fixed";
  EXPECT_EQ(renderText(builder.build(), options).find("Benchmarks"), std::string::npos);
}

}  // namespace
}  // namespace gpufl::report
