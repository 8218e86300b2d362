#include "report/aggregate/duration_stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace gpufl::report {
namespace {

// The reference: linear interpolation between order statistics at q*(n-1).
double exactPercentile(std::vector<int64_t> v, double q) {
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return static_cast<double>(v[lo]) +
         (pos - static_cast<double>(lo)) * static_cast<double>(v[hi] - v[lo]);
}

TEST(DurationStats, ExactOddCount) {
  DurationStats s;
  for (int64_t v : {5, 1, 3, 2, 4}) s.add(v);
  DurationSummary d = s.summary();
  EXPECT_EQ(d.count, 5u);
  EXPECT_EQ(d.total_ns, 15);
  EXPECT_DOUBLE_EQ(d.avg_ns, 3.0);
  EXPECT_DOUBLE_EQ(d.median_ns, 3.0);
  EXPECT_DOUBLE_EQ(d.p90_ns, 4.6);   // position 3.6: 4 + 0.6 * (5 - 4)
  EXPECT_DOUBLE_EQ(d.p99_ns, 4.96);  // position 3.96
  EXPECT_EQ(d.min_ns, 1);
  EXPECT_EQ(d.max_ns, 5);
  EXPECT_FALSE(d.approximate);
}

// summary() selects the ranks it reads instead of sorting: random sizes (odd, even, tiny) with
// repeated values agree with a full sort, also when asked again after more samples.
TEST(DurationStats, SelectedRanksAgreeWithASortOnRandomData) {
  std::mt19937_64 rng(7);
  for (size_t n : {1, 2, 3, 10, 101, 1000, 4097}) {
    DurationStats s;
    std::vector<int64_t> all;
    for (int round = 0; round < 2; ++round) {
      for (size_t i = 0; i < n; ++i) {
        const auto v = static_cast<int64_t>(rng() % (n / 2 + 3));  // many repeats
        s.add(v);
        all.push_back(v);
      }
      const DurationSummary d = s.summary();
      EXPECT_DOUBLE_EQ(d.median_ns, exactPercentile(all, 0.5)) << n;
      EXPECT_DOUBLE_EQ(d.p90_ns, exactPercentile(all, 0.9)) << n;
      EXPECT_DOUBLE_EQ(d.p99_ns, exactPercentile(all, 0.99)) << n;
    }
  }
}

TEST(DurationStats, EvenCountMedianIsMeanOfMiddlePair) {
  DurationStats s;
  for (int64_t v : {40, 10, 30, 20}) s.add(v);
  EXPECT_DOUBLE_EQ(s.summary().median_ns, 25.0);
}

TEST(DurationStats, SingleSampleAndEmpty) {
  DurationStats empty;
  EXPECT_EQ(empty.summary().count, 0u);
  DurationStats one;
  one.add(1234);
  DurationSummary d = one.summary();
  EXPECT_DOUBLE_EQ(d.median_ns, 1234);
  EXPECT_DOUBLE_EQ(d.p99_ns, 1234);
  EXPECT_EQ(d.min_ns, 1234);
}

TEST(DurationStats, NegativeCountsAsZero) {
  DurationStats s;
  s.add(-5);
  s.add(10);
  DurationSummary d = s.summary();
  EXPECT_EQ(d.min_ns, 0);
  EXPECT_EQ(d.total_ns, 10);
}

TEST(DurationStats, AddingAfterSummaryKeepsOrderRight) {
  DurationStats s;
  s.add(10);
  s.add(30);
  EXPECT_DOUBLE_EQ(s.summary().median_ns, 20);
  s.add(1);
  EXPECT_DOUBLE_EQ(s.summary().median_ns, 10);
}

TEST(DurationStats, HistogramPastLimitStaysWithinHalfPercent) {
  DurationStats s(/*exact_limit=*/100);
  std::vector<int64_t> all;
  for (int64_t v = 1; v <= 10000; ++v) {
    s.add(v);
    all.push_back(v);
  }
  DurationSummary d = s.summary();
  EXPECT_TRUE(d.approximate);
  EXPECT_EQ(d.count, 10000u);
  EXPECT_EQ(d.total_ns, 50005000);
  EXPECT_DOUBLE_EQ(d.avg_ns, 5000.5);
  EXPECT_EQ(d.min_ns, 1);
  EXPECT_EQ(d.max_ns, 10000);
  EXPECT_NEAR(d.median_ns, 5000.5, 5000.5 * 0.005);
  EXPECT_NEAR(d.p90_ns, exactPercentile(all, 0.9), exactPercentile(all, 0.9) * 0.005);
  EXPECT_NEAR(d.p99_ns, exactPercentile(all, 0.99), exactPercentile(all, 0.99) * 0.005);
}

TEST(DurationStats, HistogramOnSkewedDataIsConsistentAndAccurate) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(10.0, 2.0);  // ns, spanning many decades
  DurationStats s(/*exact_limit=*/1000);
  std::vector<int64_t> all;
  for (int i = 0; i < 50000; ++i) {
    auto v = static_cast<int64_t>(dist(rng));
    s.add(v);
    all.push_back(v);
  }
  DurationSummary d = s.summary();
  ASSERT_TRUE(d.approximate);
  EXPECT_LE(static_cast<double>(d.min_ns), d.median_ns);
  EXPECT_LE(d.median_ns, d.p90_ns);
  EXPECT_LE(d.p90_ns, d.p99_ns);
  EXPECT_LE(d.p99_ns, static_cast<double>(d.max_ns));
  for (auto [q, got] : {std::pair{0.5, d.median_ns}, {0.9, d.p90_ns}, {0.99, d.p99_ns}}) {
    double want = exactPercentile(all, q);
    EXPECT_NEAR(got, want, want * 0.005) << "q=" << q;
  }
}

TEST(LogHistogram, EveryValueIsRepresentedWithinHalfPercent) {
  for (int64_t v : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{999}, int64_t{1000}, int64_t{1001},
                    int64_t{123456789}, int64_t{1} << 40, int64_t{17400000000}}) {
    LogHistogram h;
    h.add(v);
    double est = h.valueAtRank(0);
    EXPECT_LE(std::fabs(est - static_cast<double>(v)), 0.005 * static_cast<double>(v)) << v;
  }
  for (double v = 1; v < 1e15; v *= 1.0137) {  // a sweep across every octave
    LogHistogram h;
    h.add(static_cast<int64_t>(v));
    double want = static_cast<double>(static_cast<int64_t>(v));
    ASSERT_LE(std::fabs(h.valueAtRank(0) - want), want / 256.0 + 1e-9) << want;
  }
  for (int64_t v = 1; v < 128; ++v) {  // small values are exact
    LogHistogram h;
    h.add(v);
    EXPECT_EQ(h.valueAtRank(0), static_cast<double>(v));
  }
  LogHistogram zero;
  zero.add(0);
  EXPECT_EQ(zero.valueAtRank(0), 0);
}

// Few buckets are kept as a sparse list, many in a dense vector: every rank reads the same bucket
// either way, before and after the switch (values in random order, with zeros and repeats).
TEST(LogHistogram, SparseAndDenseBucketsGiveTheSameRanks) {
  std::mt19937_64 rng(11);
  for (size_t distinct : {1, 5, 31, 32, 33, 200}) {
    std::vector<int64_t> values;
    for (size_t i = 0; i < distinct; ++i) {
      const auto v = static_cast<int64_t>(1000 * (i + 1) * (i + 1));  // one bucket each
      for (size_t r = 0; r <= i % 3; ++r) values.push_back(v);
    }
    values.push_back(0);
    std::shuffle(values.begin(), values.end(), rng);
    LogHistogram h;
    for (int64_t v : values) h.add(v);
    std::sort(values.begin(), values.end());
    ASSERT_EQ(h.count(), values.size());
    for (size_t k = 0; k < values.size(); ++k) {
      const double want = static_cast<double>(values[k]);
      EXPECT_LE(std::fabs(h.valueAtRank(k) - want), want / 256.0 + 1e-9) << distinct << " " << k;
    }
  }
}

TEST(DurationStats, SharedBudgetSendsLaterTrackersToHistograms) {
  SampleBudget budget(10);
  DurationStats a(1000, &budget), b(1000, &budget);
  for (int i = 0; i < 10; ++i) a.add(i);
  b.add(5);
  EXPECT_FALSE(a.approximate());
  EXPECT_TRUE(b.approximate());
  EXPECT_EQ(budget.left(), 0u);
}

// A tracker that switches to its histogram keeps its share of the budget spent, so that the
// trackers together never hold more than the budget (memory flat with the session's length).
TEST(DurationStats, SwitchingKeepsItsShareSpent) {
  SampleBudget budget(100);
  {
    DurationStats a(5, &budget);
    for (int i = 0; i < 6; ++i) a.add(i);  // the sixth sample switches to the histogram
    EXPECT_TRUE(a.approximate());
    EXPECT_EQ(budget.left(), 95u);
  }
  EXPECT_EQ(budget.left(), 95u);
  DurationStats c(50, &budget);
  for (int i = 0; i < 50; ++i) c.add(i);
  EXPECT_FALSE(c.approximate());
  DurationStats d(50, &budget);
  for (int i = 0; i < 50; ++i) d.add(i);
  EXPECT_TRUE(d.approximate());  // 45 left for it
}

// bucketedSummary reports what a histogram of the same samples reports, without building it.
TEST(DurationStats, BucketedSummaryMatchesAHistogramTracker) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    DurationStats histogram_only(0, nullptr);
    std::vector<int64_t> v;
    const size_t n = 1 + rng() % 3000;
    for (size_t i = 0; i < n; ++i) {
      int64_t x = static_cast<int64_t>(rng() % (round % 2 ? 200 : 10'000'000));
      if (rng() % 50 == 0) x = 0;
      v.push_back(x);
      histogram_only.add(x);
    }
    const DurationSummary want = histogram_only.summary();
    const DurationSummary got = bucketedSummary(v);
    EXPECT_TRUE(got.approximate);
    EXPECT_EQ(got.count, want.count);
    EXPECT_EQ(got.total_ns, want.total_ns);
    EXPECT_EQ(got.min_ns, want.min_ns);
    EXPECT_EQ(got.max_ns, want.max_ns);
    EXPECT_EQ(got.median_ns, want.median_ns);
    EXPECT_EQ(got.p90_ns, want.p90_ns);
    EXPECT_EQ(got.p99_ns, want.p99_ns);
  }
  EXPECT_FALSE(bucketedSummary({}).approximate);  // nothing estimated
  EXPECT_EQ(bucketedSummary({}).count, 0u);
}

// Exact percentiles, whichever way the order statistics are found (in place below 4096 samples, by
// buckets of the distance from the minimum above): the same as interpolating a sorted copy. Sizes
// around the switch, one value, ranges that fit the buckets exactly and far wider ones, heavy
// duplicates, a value far out; exactAndBucketedSummary gives the same pair.
TEST(DurationStats, ExactPercentilesMatchASortedCopy) {
  std::mt19937_64 rng(5);
  const size_t sizes[] = {1, 2, 3, 4095, 4096, 4097, 50'000, 300'000};
  const uint64_t ranges[] = {1, 7, 65'536, 65'537, 10'000'000, uint64_t{1} << 50};
  for (const size_t n : sizes) {
    for (const uint64_t range : ranges) {
      SCOPED_TRACE("n " + std::to_string(n) + ", range " + std::to_string(range));
      std::vector<int64_t> v(n);
      for (int64_t& x : v) x = 1000 + static_cast<int64_t>(rng() % range);
      if (n > 10) v[n / 2] = 1000 + static_cast<int64_t>(range) * 3;  // one far out
      std::vector<int64_t> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int64_t> a = v, b = v;
      const DurationSummary got = exactSummary(a);
      EXPECT_EQ(got.median_ns, exactPercentile(v, 0.5));
      EXPECT_EQ(got.p90_ns, exactPercentile(v, 0.9));
      EXPECT_EQ(got.p99_ns, exactPercentile(v, 0.99));
      EXPECT_EQ(got.min_ns, sorted.front());
      EXPECT_EQ(got.max_ns, sorted.back());
      std::vector<int64_t> c = v;
      const auto [exact, bucketed] = exactAndBucketedSummary(b);
      const DurationSummary bucketed_alone = bucketedSummary(c);
      EXPECT_EQ(exact.median_ns, got.median_ns);
      EXPECT_EQ(exact.p99_ns, got.p99_ns);
      EXPECT_EQ(bucketed.median_ns, bucketed_alone.median_ns);
      EXPECT_EQ(bucketed.p90_ns, bucketed_alone.p90_ns);
      EXPECT_EQ(bucketed.p99_ns, bucketed_alone.p99_ns);
      EXPECT_TRUE(bucketed.approximate && !exact.approximate);
    }
  }
}

TEST(DurationStats, DefaultLimitIsOneMebiSample) {
  EXPECT_EQ(DurationStats::kExactLimit, 1048576u);
}

}  // namespace
}  // namespace gpufl::report
