#include "report/aggregate/range_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gpufl::report {
namespace {

RangeCounters range(const std::string& name, std::map<std::string, double> metrics) {
  RangeCounters r;
  r.range = name;
  r.metrics = std::move(metrics);
  return r;
}

TEST(RangeAggregator, CountsAddUpAndRatesAreTimeWeightedMeans) {
  RangeAggregator a;
  a.add(range("step", {{"gpu__time_duration.sum", 1000},
                       {"dram__bytes_read.sum", 64},
                       {"l1tex__t_sector_hit_rate.pct", 80}}));
  a.add(range("step", {{"gpu__time_duration.sum", 3000},
                       {"dram__bytes_read.sum", 36},
                       {"l1tex__t_sector_hit_rate.pct", 40}}));
  auto rows = a.rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].instances, 2u);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("gpu__time_duration.sum"), 4000);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("dram__bytes_read.sum"), 100);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("l1tex__t_sector_hit_rate.pct"), 50);  // (80x1 + 40x3) / 4
}

// Metric groups take turns across instances: each metric averages over the instances that have it;
// without a duration on every one of them the mean is unweighted.
TEST(RangeAggregator, EachMetricOverTheInstancesThatCollectedIt) {
  RangeAggregator a;
  a.add(range("loop", {{"sm__throughput.avg.pct_of_peak_sustained_elapsed", 30}}));
  a.add(range("loop", {{"sm__throughput.avg.pct_of_peak_sustained_elapsed", 50},
                       {"gpu__time_duration.sum", 10}}));
  a.add(range("loop", {{"lts__t_sector_hit_rate.pct", 90}, {"gpu__time_duration.sum", 10}}));
  a.add(range("other", {{"x.avg", NAN}}));
  auto rows = a.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].range, "loop");
  EXPECT_EQ(rows[0].instances, 3u);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 40);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("lts__t_sector_hit_rate.pct"), 90);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("gpu__time_duration.sum"), 20);
  EXPECT_EQ(rows[1].range, "other");
  EXPECT_TRUE(rows[1].metrics.empty());  // NaN (not collected) is left out
}

// Per-kernel ranges: a row per (scope, kernel), apart from the scope's own whole-range row.
TEST(RangeAggregator, PerKernelRangesAreRowsOfTheirOwn) {
  RangeAggregator a;
  RangeCounters k1 = range("step", {{"gpu__time_duration.sum", 10}});
  k1.kernel = "fwd(float*)";
  RangeCounters k2 = range("step", {{"gpu__time_duration.sum", 30}});
  k2.kernel = "bwd(float*)";
  a.add(k1);
  a.add(k2);
  a.add(k1);
  a.add(range("step", {{"gpu__time_duration.sum", 200}}));
  auto rows = a.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kernel, "fwd(float*)");
  EXPECT_EQ(rows[0].instances, 2u);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("gpu__time_duration.sum"), 20);
  EXPECT_EQ(rows[1].kernel, "bwd(float*)");
  EXPECT_EQ(rows[2].kernel, "");
  EXPECT_DOUBLE_EQ(rows[2].metrics.at("gpu__time_duration.sum"), 200);
}

TEST(RangeAggregator, AdditiveMeansDotSum) {
  EXPECT_TRUE(isAdditiveMetric("dram__bytes_write.sum"));
  EXPECT_FALSE(isAdditiveMetric("sm__warps_active.avg.pct_of_peak_sustained_active"));
  EXPECT_FALSE(isAdditiveMetric("lts__t_sector_hit_rate.pct"));
  EXPECT_FALSE(isAdditiveMetric("sum"));
}

}  // namespace
}  // namespace gpufl::report
