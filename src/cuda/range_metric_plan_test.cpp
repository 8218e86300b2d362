#include "cuda/range_metric_plan.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <map>

namespace gpufl::cuda {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A chip like GH100: most metrics fit one pass; the L2 hit/miss counters exclude each other.
size_t fakePasses(const std::vector<std::string>& metrics) {
  static const std::map<std::string, size_t> alone = {
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 8}, {"lts__t_sector_hit_rate.pct", 2}};
  size_t passes = 1;
  for (const std::string& m : metrics) {
    if (m.find("bogus") != std::string::npos) return 0;
    if (auto it = alone.find(m); it != alone.end()) passes = std::max(passes, it->second);
  }
  if (contains(metrics, "lts__t_sectors_lookup_hit.sum") &&
      contains(metrics, "lts__t_sectors_lookup_miss.sum"))
    passes = std::max<size_t>(passes, 2);
  return passes;
}

TEST(RangeMetricPlan, SinglePassGroupsEachTimed) {
  unsetenv("GPUFL_RANGE_METRICS");
  RangeMetricPlan plan = planRangeMetrics(defaultRangeMetrics(), fakePasses);
  ASSERT_EQ(plan.groups.size(), 2u);
  for (const auto& group : plan.groups) {
    EXPECT_EQ(fakePasses(group), 1u);
    EXPECT_TRUE(contains(group, "gpu__time_duration.sum"));  // bandwidth needs time in every group
  }
  EXPECT_TRUE(contains(plan.groups[0], "dram__bytes_read.sum"));
  EXPECT_TRUE(contains(plan.groups[0], "lts__t_sectors_lookup_hit.sum"));
  EXPECT_TRUE(contains(plan.groups[1], "lts__t_sectors_lookup_miss.sum"));
  ASSERT_EQ(plan.ratios.size(), 1u);
  EXPECT_EQ(plan.ratios[0].name, "lts__t_sector_hit_rate.pct");
  ASSERT_EQ(plan.unavailable.size(), 1u);
  EXPECT_EQ(plan.unavailable[0], "sm__throughput.avg.pct_of_peak_sustained_elapsed (8 passes)");
}

TEST(RangeMetricPlan, UnknownMetricsAreReported) {
  RangeMetricPlan plan =
      planRangeMetrics({"gpu__time_duration.sum", "bogus__metric.sum"}, fakePasses);
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0], std::vector<std::string>{"gpu__time_duration.sum"});
  ASSERT_EQ(plan.unavailable.size(), 1u);
  EXPECT_NE(plan.unavailable[0].find("not a metric"), std::string::npos);
  EXPECT_TRUE(planRangeMetrics({}, fakePasses).groups.empty());
}

TEST(RangeMetricPlan, MetricsFromTheEnvironment) {
  setenv("GPUFL_RANGE_METRICS", "a.sum,b.pct,", 1);
  EXPECT_EQ(defaultRangeMetrics(), (std::vector<std::string>{"a.sum", "b.pct"}));
  unsetenv("GPUFL_RANGE_METRICS");
  EXPECT_EQ(defaultRangeMetrics().size(), 8u);
}

// The profiler host API works without a GPU: the real GH100 (H100/H200) pass counts.
TEST(RangeMetricPlan, RealHostApiForGH100) {
  unsetenv("GPUFL_RANGE_METRICS");
  if (hostPassCount("GH100", {"gpu__time_duration.sum"}) != 1)
    GTEST_SKIP() << "profiler host API unusable";
  EXPECT_EQ(hostPassCount("GH100", {"bogus__metric.sum"}), 0u);
  EXPECT_EQ(hostPassCount("GH100", {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}), 8u);
  RangeMetricPlan plan =
      planRangeMetrics(defaultRangeMetrics(),
                       [](const std::vector<std::string>& m) { return hostPassCount("GH100", m); });
  ASSERT_FALSE(plan.groups.empty());
  std::vector<std::string> collected;
  for (const auto& group : plan.groups) {
    EXPECT_EQ(hostPassCount("GH100", group), 1u);
    collected.insert(collected.end(), group.begin(), group.end());
  }
  for (const char* m :
       {"dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "l1tex__t_sector_hit_rate.pct",
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum"}) {
    EXPECT_TRUE(contains(collected, m)) << m;
  }
  ASSERT_EQ(plan.ratios.size(), 1u);
  ASSERT_EQ(plan.unavailable.size(), 1u);
  EXPECT_EQ(plan.unavailable[0], "sm__throughput.avg.pct_of_peak_sustained_elapsed (8 passes)");
}

}  // namespace
}  // namespace gpufl::cuda
