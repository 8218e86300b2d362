#include "report/aggregate/group_intervals.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace gpufl::report {
namespace {

// Against one CoarseIntervals per group: groups below, at and far past kMaxIntervals (where
// merging and the coarser resolution start), intervals out of order, overlapping, touching, empty
// and reversed.
TEST(GroupIntervals, SameAsOneCoarseIntervalsPerGroup) {
  std::mt19937_64 rng(5);
  constexpr uint32_t kGroups = 40;
  GroupIntervals got;
  std::vector<CoarseIntervals> want(kGroups);
  for (uint32_t g = 0; g < kGroups; ++g) got.addGroup();
  EXPECT_EQ(got.groups(), kGroups);
  int64_t t = 1'000'000;
  for (int i = 0; i < 100'000; ++i) {
    // Group g gets about (g + 1)^2 / 2 shares: a few launches for the first, thousands for the
    // last.
    uint32_t g = static_cast<uint32_t>(rng() % (kGroups * kGroups));
    g = static_cast<uint32_t>(std::sqrt(static_cast<double>(g)));
    if (g < 3 && rng() % 30 != 0) continue;  // the first groups stay small
    t += static_cast<int64_t>(rng() % 3000);
    int64_t start = t - static_cast<int64_t>(rng() % 4 == 0 ? rng() % 20'000 : 0);  // late ones
    int64_t end = start + static_cast<int64_t>(rng() % 2500);
    if (rng() % 50 == 0) end = start - 7;  // reversed: an empty interval
    got.add(g, start, end);
    want[g].add(start, end);
  }
  size_t coarse = 0, small = 0;
  for (uint32_t g = 0; g < kGroups; ++g) {
    CoarseIntervals a = got.of(g);
    EXPECT_EQ(a.intervals(), want[g].intervals()) << "group " << g;
    EXPECT_EQ(a.resolutionNs(), want[g].resolutionNs()) << "group " << g;
    coarse += want[g].resolutionNs() > 0;
    small += want[g].intervals().size() < CoarseIntervals::kMaxIntervals / 2;
  }
  EXPECT_GT(coarse, 0u) << "no group went past kMaxIntervals";
  EXPECT_GT(small, 0u) << "no group stayed below kMaxIntervals";
}

TEST(GroupIntervals, ExactlyAtTheLimitStaysExact) {
  GroupIntervals got;
  CoarseIntervals want;
  got.addGroup();
  for (int64_t i = 0; i < static_cast<int64_t>(CoarseIntervals::kMaxIntervals); ++i) {
    got.add(0, i * 100, i * 100 + 10);
    want.add(i * 100, i * 100 + 10);
  }
  CoarseIntervals a = got.of(0);
  EXPECT_EQ(a.intervals().size(), CoarseIntervals::kMaxIntervals);
  EXPECT_EQ(a.intervals(), want.intervals());
  EXPECT_EQ(a.resolutionNs(), 0);
  EXPECT_TRUE(got.of(0).intervals().size() == CoarseIntervals::kMaxIntervals);  // of() is a copy
}

}  // namespace
}  // namespace gpufl::report
