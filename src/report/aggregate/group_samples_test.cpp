#include "report/aggregate/group_samples.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace gpufl::report {
namespace {

// byGroup returns each group's samples in log order, instrumented ones encoded, across chunk
// boundaries and with durations too long for the log's 32 bits.
TEST(GroupSampleLog, ByGroupKeepsEachGroupsSamplesInOrder) {
  std::mt19937_64 rng(7);
  constexpr uint32_t kGroups = 5;
  GroupSampleLog log;
  std::vector<std::vector<int64_t>> expected(kGroups);
  std::vector<uint32_t> counts(kGroups);
  for (int i = 0; i < 200'000; ++i) {
    const auto g = static_cast<uint32_t>(rng() % kGroups);
    int64_t ns = static_cast<int64_t>(rng() % 100'000);
    if (i % 997 == 0) ns = (int64_t{1} << 40) + i;  // past 32 bits
    if (i % 1999 == 0) ns = 0xFFFFFFFF;             // exactly the escape value
    const bool instrumented = rng() % 3 == 0;
    log.add(g, ns, instrumented);
    expected[g].push_back(instrumented ? ~ns : ns);
    ++counts[g];
  }
  EXPECT_EQ(log.size(), 200'000u);
  const GroupSampleLog::ByGroup by = log.byGroup(counts);
  ASSERT_EQ(by.offsets.size(), kGroups + 1);
  // Taking them gives the same and leaves the log empty.
  const GroupSampleLog::ByGroup taken = log.takeByGroup(counts);
  EXPECT_TRUE(
      std::equal(taken.samples.begin(), taken.samples.end(), by.samples.begin(), by.samples.end()));
  EXPECT_EQ(taken.offsets, by.offsets);
  EXPECT_EQ(log.size(), 0u);
  for (uint32_t g = 0; g < kGroups; ++g) {
    const std::vector<int64_t> got(
        by.samples.begin() + static_cast<std::ptrdiff_t>(by.offsets[g]),
        by.samples.begin() + static_cast<std::ptrdiff_t>(by.offsets[g + 1]));
    EXPECT_EQ(got, expected[g]) << "group " << g;
  }
}

TEST(GroupSampleLog, LargestGroupIdAndEmptyGroups) {
  GroupSampleLog log;
  std::vector<uint32_t> counts(4);
  log.add(3, 5, false);
  counts[3] = 1;
  const auto by = log.byGroup(counts);
  EXPECT_EQ(by.offsets, (std::vector<size_t>{0, 0, 0, 0, 1}));
  ASSERT_EQ(by.samples.size(), 1u);
  EXPECT_EQ(by.samples[0], 5);
}

TEST(GroupSampleLog, SplitInstrumentedPutsCleanFirstAndDecodes) {
  std::vector<int64_t> v = {4, ~int64_t{7}, 0, ~int64_t{0}, 9};
  const size_t clean = GroupSampleLog::splitInstrumented(v);
  ASSERT_EQ(clean, 3u);
  std::vector<int64_t> c(v.begin(), v.begin() + 3), i(v.begin() + 3, v.end());
  std::sort(c.begin(), c.end());
  std::sort(i.begin(), i.end());
  EXPECT_EQ(c, (std::vector<int64_t>{0, 4, 9}));
  EXPECT_EQ(i, (std::vector<int64_t>{0, 7}));
}

}  // namespace
}  // namespace gpufl::report
