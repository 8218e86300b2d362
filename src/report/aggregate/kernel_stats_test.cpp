#include "report/aggregate/kernel_stats.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/checked_math.hpp"

namespace gpufl::report {
namespace {

// What KernelAggregator kept per group before it shared one sample log: a DurationStats per group
// (exact, then a histogram) and a histogram-only one for uninstrumented launches, taking from the
// budget in the same order (group, session, session clean). Its summaries are the reference.
struct Reference {
  Reference(size_t limit, size_t budget)
      : budget(budget), all(limit, &this->budget), clean(limit, &this->budget), limit(limit) {}
  struct Group {
    std::unique_ptr<DurationStats> durations, clean;
    uint64_t instrumented = 0;
  };
  void add(uint32_t g, int64_t ns, bool instrumented) {
    Group& r = groups[g];
    if (!r.durations) {
      r.durations = std::make_unique<DurationStats>(limit, &budget);
      r.clean = std::make_unique<DurationStats>(0, nullptr);
    }
    r.durations->add(ns);
    all.add(ns);
    if (instrumented) {
      ++r.instrumented;
    } else {
      clean.add(ns);
      r.clean->add(ns);
    }
  }
  SampleBudget budget;
  DurationStats all, clean;
  size_t limit;
  std::map<uint32_t, Group> groups;
};

void expectSame(const DurationSummary& got, const DurationSummary& want, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.total_ns, want.total_ns);
  EXPECT_EQ(got.min_ns, want.min_ns);
  EXPECT_EQ(got.max_ns, want.max_ns);
  EXPECT_EQ(got.approximate, want.approximate);
  // Bit for bit: the report prints these.
  EXPECT_EQ(got.avg_ns, want.avg_ns);
  EXPECT_EQ(got.median_ns, want.median_ns);
  EXPECT_EQ(got.p90_ns, want.p90_ns);
  EXPECT_EQ(got.p99_ns, want.p99_ns);
}

KernelDef def(uint32_t id) {
  KernelDef d;
  d.id = id;
  d.name = "_Z1kILi" + std::to_string(id) + "EEvv";
  d.demangled = "void k<" + std::to_string(id) + ">()";
  d.grid = {1, 1, 1};
  d.block = {32, 1, 1};
  return d;
}

// Groups of one launch, a few, and many; instrumented launches; durations past 32 bits; exact
// limits and budgets small enough that groups switch to histograms at different points (the grown
// path), including groups switched by the budget alone.
void compareWithReference(size_t limit, size_t budget, uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr uint32_t kDefs = 400;
  SampleBudget agg_budget(budget);
  KernelAggregator agg(limit, &agg_budget);
  Reference ref(limit, budget);
  for (uint32_t id = 1; id <= kDefs; ++id) agg.onDef(def(id));
  int64_t start = 1'000'000;
  for (int i = 0; i < 60'000; ++i) {
    // Skewed: a few groups get most launches, most get a handful.
    const uint32_t id = rng() % 4 == 0 ? 1 + static_cast<uint32_t>(rng() % kDefs)
                                       : 1 + static_cast<uint32_t>(rng() % 5);
    int64_t dur = static_cast<int64_t>(rng() % 50'000);
    if (rng() % 500 == 0) dur = (int64_t{1} << 33) + static_cast<int64_t>(rng() % 1000);
    if (rng() % 200 == 0) dur = 0;
    const bool instrumented = rng() % 5 == 0;
    start += static_cast<int64_t>(rng() % 5000);
    KernelEvent e;
    e.def_id = id;
    e.start_ns = start;
    e.end_ns = start + dur;
    e.instrumented = instrumented;
    agg.onKernel(e);
    ref.add(id - 1, dur, instrumented);  // def ids 1.. made groups 0.. in order
  }
  KernelSummary out;
  agg.finish(0, out);
  expectSame(out.all, ref.all.summary(), "session");
  expectSame(out.clean, ref.clean.summary(), "session clean");
  EXPECT_EQ(agg_budget.left(), ref.budget.left());
  size_t approximate = 0;
  ASSERT_FALSE(out.groups.empty());
  for (const KernelGroup& g : out.groups) {
    Reference::Group& r = ref.groups.at(g.def.id - 1);
    expectSame(g.durations, r.durations->summary(), g.name);
    expectSame(g.clean, r.clean->summary(), g.name + " clean");
    EXPECT_EQ(g.instrumented, r.instrumented);
    approximate += g.durations.approximate;
  }
  EXPECT_EQ(out.groups.size(), ref.groups.size());
  if (limit < 60'000 || budget < 3 * 60'000) {
    EXPECT_GT(approximate, 0u) << "no group took the grown path";
  }
  // A second finish (ReportBuilder::build may be called again) gives the same summaries.
  KernelSummary again;
  agg.finish(0, again);
  ASSERT_EQ(again.groups.size(), out.groups.size());
  for (size_t i = 0; i < out.groups.size(); ++i)
    expectSame(again.groups[i].durations, out.groups[i].durations, "again " + out.groups[i].name);
  // The last finish moves the definitions out; what it reports is the same.
  KernelSummary last;
  agg.finish(0, last, nullptr, /*last=*/true);
  ASSERT_EQ(last.groups.size(), out.groups.size());
  EXPECT_EQ(last.unique_functions, out.unique_functions);
  for (size_t i = 0; i < out.groups.size(); ++i) {
    const KernelGroup& a = last.groups[i];
    const KernelGroup& b = out.groups[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.mangled, b.mangled);
    EXPECT_EQ(a.def.name, b.def.name);
    EXPECT_EQ(a.def.demangled, b.def.demangled);
    EXPECT_EQ(a.instrumented, b.instrumented);
    expectSame(a.durations, b.durations, "last " + b.name);
    expectSame(a.clean, b.clean, "last clean " + b.name);
  }
}

TEST(KernelAggregator, SameStatsAsOneTrackerPerGroupAllExact) {
  compareWithReference(DurationStats::kExactLimit, 8 * DurationStats::kExactLimit, 1);
}

TEST(KernelAggregator, SameStatsAsOneTrackerPerGroupPastTheGroupLimit) {
  compareWithReference(2000, 8 * DurationStats::kExactLimit, 2);
}

TEST(KernelAggregator, SameStatsAsOneTrackerPerGroupPastTheBudget) {
  compareWithReference(DurationStats::kExactLimit, 50'000, 3);
}

TEST(KernelAggregator, SameStatsAsOneTrackerPerGroupWithNoExactSamples) {
  compareWithReference(0, 8 * DurationStats::kExactLimit, 4);
}

// Groups are keyed by (readable name, grid, block): definitions that agree share a group however
// many groups exist (the index grows past its first size).
TEST(KernelAggregator, GroupsByNameAndShapeAcrossIndexGrowth) {
  SampleBudget budget(1 << 20);
  KernelAggregator agg(1 << 20, &budget);
  constexpr uint32_t kNames = 3000;
  for (uint32_t i = 0; i < kNames; ++i) {
    KernelDef d = def(i + 1);
    agg.onDef(d);
    d.id = kNames + i + 1;  // same name and shape, another id (another device): same group
    agg.onDef(d);
    d.id = 2 * kNames + i + 1;
    d.grid.x = 2;  // another shape: its own group
    agg.onDef(d);
  }
  for (uint32_t id = 1; id <= 3 * kNames; ++id) {
    KernelEvent e;
    e.def_id = id;
    e.start_ns = id * 10;
    e.end_ns = id * 10 + 5;
    agg.onKernel(e);
  }
  KernelSummary out;
  agg.finish(0, out);
  EXPECT_EQ(out.groups.size(), 2u * kNames);
  EXPECT_EQ(out.unique_functions, kNames);
  for (const KernelGroup& g : out.groups) {
    EXPECT_EQ(g.durations.count, g.grid.x == 2 ? 1u : 2u) << g.name;
    EXPECT_EQ(g.defs, g.grid.x == 2 ? 1u : 2u) << g.name;
  }
}

// SASS and PC records name functions by their mangled name: the readable one is that of the first
// definition with it, also when that definition joined a group another mangled name made.
TEST(KernelAggregator, ReadableNameOfTheFirstDefinitionWithAMangledName) {
  SampleBudget budget(1 << 20);
  KernelAggregator agg(1 << 20, &budget);
  KernelDef a;
  a.id = 1;
  a.name = "_Z1aPf";
  a.demangled = "a(float*)";
  agg.onDef(a);
  KernelDef b = a;  // another mangled name, the same readable one and shape: a's group
  b.id = 2;
  b.name = "_ZL1aPf";
  agg.onDef(b);
  KernelDef c = a;  // a's mangled name again, another readable one: the first stays
  c.id = 3;
  c.demangled = "something else";
  agg.onDef(c);
  KernelDef plain;  // not mangled: readable as it is
  plain.id = 4;
  plain.name = "plain_kernel";
  agg.onDef(plain);
  ASSERT_NE(agg.readableName("_Z1aPf"), nullptr);
  EXPECT_EQ(*agg.readableName("_Z1aPf"), "a(float*)");
  ASSERT_NE(agg.readableName("_ZL1aPf"), nullptr);
  EXPECT_EQ(*agg.readableName("_ZL1aPf"), "a(float*)");
  ASSERT_NE(agg.readableName("plain_kernel"), nullptr);
  EXPECT_EQ(*agg.readableName("plain_kernel"), "plain_kernel");
  EXPECT_EQ(agg.readableName("_Z5otherv"), nullptr);
}

}  // namespace
}  // namespace gpufl::report
