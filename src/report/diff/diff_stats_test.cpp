// gpufl diff's noise model on synthetic pairs with planted regressions, and on a real H200 session
// split in two (every other launch of each kernel): two samples of one distribution must pass the
// gate, a 10% slower kernel must fail it.
#include "report/diff/diff_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "log/reader.hpp"

namespace gpufl::report {
namespace {

TEST(DiffStats, RankTestMatchesTheNormalApproximation) {
  // U = 0, mean 12.5, var 25 * 11 / 12: z = (12.5 - 0.5) / 4.787 = 2.507, two-sided p = 0.0122
  // (scipy's mannwhitneyu(method="asymptotic") gives the same).
  EXPECT_NEAR(rankTestPValue({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.01218, 1e-4);
  EXPECT_NEAR(rankTestPValue({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 0.01218, 1e-4);  // two-sided
  EXPECT_EQ(rankTestPValue({1, 1, 1}, {1, 1}), 1);                                // all tied
  EXPECT_EQ(rankTestPValue({}, {1}), 1);
  EXPECT_GT(rankTestPValue({1, 3, 5, 7}, {2, 4, 6, 8}), 0.5);
}

TEST(DiffStats, MedianOfEvenAndOdd) {
  EXPECT_EQ(medianOf({3, 1, 2}), 2);
  EXPECT_EQ(medianOf({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(medianOf({}), 0);
}

// A session like a training loop: kernels with a base time, 1.5% normal jitter and 0.3% of launches
// 20-60% slower (bench/synthetic_session.hpp's model), inside "step" scopes.
struct Planted {
  uint32_t kernel = 0;  // def id to slow down (0: none)
  double factor = 1;
};

DiffSide synthetic(uint64_t seed, Planted planted = {}, int steps = 100) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> jitter(0, 0.015);
  std::uniform_real_distribution<double> u(0, 1);
  const double base_ns[] = {180e3, 45e3, 12e3, 3e3};
  DiffCollector c;
  for (uint32_t k = 1; k <= 4; ++k) {
    KernelDef d;
    d.id = k;
    d.name = "kernel_" + std::to_string(k);
    d.grid = {k * 64, 1, 1};
    d.block = {256, 1, 1};
    c.onKernelDef(d);
  }
  c.onScopePath(ScopePath{"", 1, 0, "step", 0});
  int64_t t = 0;
  uint64_t scope_id = 0;
  for (int s = 0; s < steps; ++s) {
    c.onScopeBegin(ScopeBegin{
        .sid = "", .id = ++scope_id, .path = 1, .tid = 1, .ts_ns = t, .name = {}, .tag = {}});
    for (uint32_t k = 1; k <= 4; ++k) {
      double dur = base_ns[k - 1] * (1 + jitter(rng));
      if (u(rng) < 0.003) dur *= 1.2 + 0.4 * u(rng);
      if (k == planted.kernel) dur *= planted.factor;
      KernelEvent e;
      e.def_id = k;
      e.start_ns = t;
      e.end_ns = t + static_cast<int64_t>(dur);
      c.onKernel(e);
      t = e.end_ns + 2000;
    }
    c.onScopeEnd(ScopeEnd{"", scope_id, 1, 1, t});
  }
  return c.finish("seed " + std::to_string(seed));
}

const GroupDiff* group(const SessionDiff& d, const std::string& kind,
                       const std::string& key_start) {
  for (const GroupDiff& g : d.groups)
    if (g.kind == kind && g.key.rfind(key_start, 0) == 0) return &g;
  return nullptr;
}

TEST(DiffStats, TwoSamplesOfTheSameDistributionPassTheGate) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const SessionDiff d = diffSessions(synthetic(seed), synthetic(seed + 1000));
    EXPECT_EQ(d.regressions, 0u) << "seed " << seed << "\n" << renderDiffText(d);
  }
}

TEST(DiffStats, APlantedTenPercentSlowerKernelFailsTheGate) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const SessionDiff d = diffSessions(synthetic(seed), synthetic(seed + 1000, {2, 1.10}));
    ASSERT_EQ(d.regressions, 1u) << renderDiffText(d);
    const GroupDiff* g = group(d, "kernel", "kernel_2 ");
    ASSERT_NE(g, nullptr);
    EXPECT_TRUE(g->regression);
    EXPECT_EQ(g->verdict, Verdict::Slower);
    EXPECT_NEAR(g->change, 0.10, 0.01);
    EXPECT_EQ(group(d, "kernel", "kernel_1 ")->verdict, Verdict::Same);
  }
}

TEST(DiffStats, ARealChangeBelowTheThresholdIsReportedButPasses) {
  const SessionDiff d = diffSessions(synthetic(7), synthetic(8, {1, 1.03}));
  EXPECT_EQ(d.regressions, 0u);
  EXPECT_EQ(group(d, "kernel", "kernel_1 ")->verdict, Verdict::Slower);
  DiffOptions strict;
  strict.threshold = 0.02;
  // kernel_1 and the step scope it is most of (about 2.4% slower) are both past 2%.
  const SessionDiff d2 = diffSessions(synthetic(7), synthetic(8, {1, 1.03}), strict);
  EXPECT_EQ(d2.regressions, 2u) << renderDiffText(d2);
  EXPECT_TRUE(group(d2, "kernel", "kernel_1 ")->regression);
  EXPECT_TRUE(group(d2, "scope", "step")->regression);
}

TEST(DiffStats, FasterIsNotARegressionAndScopesAreCompared) {
  const SessionDiff d = diffSessions(synthetic(3), synthetic(4, {1, 0.8}));
  EXPECT_EQ(d.regressions, 0u);
  EXPECT_EQ(group(d, "kernel", "kernel_1 ")->verdict, Verdict::Faster);
  const GroupDiff* step = group(d, "scope", "step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->verdict, Verdict::Faster);  // kernel_1 is most of a step
  EXPECT_EQ(step->base_count, 100u);
}

TEST(DiffStats, TooFewLaunchesNeverFail) {
  const SessionDiff d = diffSessions(synthetic(1, {}, 3), synthetic(2, {2, 2.0}, 3));
  EXPECT_EQ(d.regressions, 0u);
  EXPECT_EQ(group(d, "kernel", "kernel_2 ")->verdict, Verdict::TooFew);
  EXPECT_NEAR(group(d, "kernel", "kernel_2 ")->change, 1.0, 0.1);
}

TEST(DiffStats, NewAndVanishedKernelsAndCounters) {
  DiffSide base = synthetic(1), next = synthetic(2);
  const std::string first = base.kernels.begin()->first,
                    gone = std::prev(base.kernels.end())->first;
  next.kernels.erase(gone);
  next.kernels["fresh grid(1,1,1) block(32,1,1)"] = {{1000, 1000}, 2, {}, {}};
  base.kernels[first].occupancy = 0.5;
  next.kernels[first].occupancy = 0.25;
  const SessionDiff d = diffSessions(base, next);
  EXPECT_EQ(group(d, "kernel", "fresh")->verdict, Verdict::New);
  EXPECT_EQ(group(d, "kernel", gone)->verdict, Verdict::Vanished);
  const std::string text = renderDiffText(d);
  EXPECT_NE(text.find("counters: occupancy 50.0% -> 25.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("gate: pass"), std::string::npos);
}

TEST(DiffStats, BenchmarksAreRealWhenTheirRangesAreApart) {
  BenchmarkResult b;
  b.name = "gemm";
  b.shape = "4096";
  b.reps = 100;
  b.median_ns = 1000000;
  b.p10_ns = 990000;
  b.p90_ns = 1010000;
  BenchmarkResult slow = b;
  slow.median_ns = 1100000;
  slow.p10_ns = 1090000;
  slow.p90_ns = 1110000;
  BenchmarkResult noisy = slow;
  noisy.p10_ns = 900000;  // overlaps the base range: not real
  DiffSide base, next, wobbly;
  base.benchmarks["gemm [4096]"] = b;
  next.benchmarks["gemm [4096]"] = slow;
  wobbly.benchmarks["gemm [4096]"] = noisy;
  const SessionDiff d = diffSessions(base, next);
  EXPECT_EQ(d.regressions, 1u);
  EXPECT_NEAR(group(d, "benchmark", "gemm")->change, 0.10, 1e-9);
  EXPECT_EQ(diffSessions(base, wobbly).regressions, 0u);
  const std::string json = renderDiffJson(d);
  EXPECT_NE(json.find("\"pass\": false"), std::string::npos) << json;
}

// A real H200 session (PyTorch training) split into two: every other launch of each kernel and
// every other step scope, so both halves are samples of one run's distribution.
class Split final : public EventVisitor {
 public:
  DiffCollector a, b;
  Planted planted;  // slows a kernel of half b
  std::map<uint32_t, uint64_t> seen;
  std::mt19937_64 coin{42};
  void onKernelDef(const KernelDef& e) override {
    a.onKernelDef(e);
    b.onKernelDef(e);
  }
  void onKernel(const KernelEvent& e) override {
    ++seen[e.def_id];
    if (coin() % 2 == 0) return a.onKernel(e);
    KernelEvent slow = e;
    if (e.def_id == planted.kernel)
      slow.end_ns = e.start_ns + static_cast<int64_t>(static_cast<double>(e.end_ns - e.start_ns) *
                                                      planted.factor);
    b.onKernel(slow);
  }
};

TEST(DiffStats, RealH200SessionSplitInTwoPassesAndFailsWithAPlantedSlowdown) {
  const std::string prefix = std::string(GPUFL_TEST_DATA_DIR) + "/h200/pytorch_train_trace";
  Split whole;
  ASSERT_TRUE(log::readPrefix(prefix, {}, whole).any_readable);
  const SessionDiff same = diffSessions(whole.a.finish("even"), whole.b.finish("odd"));
  EXPECT_EQ(same.regressions, 0u) << renderDiffText(same);
  // The kernel with the most launches, 10% slower in one half.
  uint32_t most = 0;
  for (const auto& [id, n] : whole.seen)
    if (!most || n > whole.seen[most]) most = id;
  Split planted;
  planted.planted = {most, 1.10};
  ASSERT_TRUE(log::readPrefix(prefix, {}, planted).any_readable);
  const SessionDiff d = diffSessions(planted.a.finish("even"), planted.b.finish("odd"));
  EXPECT_GE(d.regressions, 1u) << renderDiffText(d);
  size_t regressed = 0;
  for (const GroupDiff& g : d.groups) regressed += g.regression && g.change > 0.05;
  EXPECT_EQ(regressed, d.regressions);
}

}  // namespace
}  // namespace gpufl::report
