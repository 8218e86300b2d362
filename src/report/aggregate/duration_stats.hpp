// Duration statistics in bounded memory: exact samples up to a limit, then a log-bucketed
// histogram.
//
// Percentiles use linear interpolation between order statistics (position q*(n-1)), so the median
// of an even count is the mean of the two middle values, and min <= median <= p90 <= p99 <= max
// always holds. Past the exact limit each order statistic is estimated from its bucket with
// relative error <= 0.5% and clamped to the exact [min, max]; count, total, mean, min and max stay
// exact. summary().approximate says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "report/model/report_model.hpp"

namespace gpufl::report {

// A cap on exact samples shared by every DurationStats of one report, so that many groups together
// stay bounded too. A tracker that cannot take from the budget switches to its histogram; what it
// took stays spent (only a tracker destroyed with exact samples gives them back).
class SampleBudget {
 public:
  explicit SampleBudget(size_t samples) : left_(samples) {}
  bool take() {
    if (left_ == 0) return false;
    --left_;
    return true;
  }
  void giveBack(size_t n) { left_ += n; }
  size_t left() const { return left_; }

 private:
  size_t left_;
};

// Log-bucketed histogram of non-negative integers: each power-of-two octave is split into 128 equal
// sub-buckets (log-linear, as HDR histograms do), so a bucket's midpoint is within 1/256 (0.39%) of
// every value in it; values below 128 get exact buckets. While few buckets are in use they are kept
// as a short sorted list of (index, count); past kSparseMax, in one vector covering the indices in
// use. A report keeps one histogram per kernel group: with 100,000 names of ten launches each, a
// dense vector spanning 7 octaves (~7 KB) per group was most of the report's memory.
class LogHistogram {
 public:
  static constexpr double kRelativeError = 0.005;  // promised bound; the design gives 1/256
  void add(int64_t value, uint64_t times = 1);
  uint64_t count() const { return count_; }
  // Estimate of the k-th smallest value (0-based, k < count()).
  double valueAtRank(uint64_t k) const;
  // The value valueAtRank reports for every sample in `value`'s bucket. Buckets are ordered like
  // the values in them, so valueAtRank(k) is bucketValue(the k-th smallest sample).
  static double bucketValue(int64_t value);

 private:
  static constexpr int kSubBits = 7;
  static size_t indexOf(uint64_t value);
  static double valueOf(size_t index);

  static constexpr size_t kSparseMax = 32;
  void addDense(size_t index, uint64_t times);

  uint64_t zero_count_ = 0;
  uint64_t count_ = 0;
  std::vector<std::pair<uint32_t, uint64_t>> sparse_;  // (index, count) by index, until dense
  size_t first_ = 0;                                   // index of buckets_[0]
  std::vector<uint64_t> buckets_;  // counts of indices first_ .. first_ + size - 1; empty: sparse
};

// Count, total, min and max of durations (negative ones count as 0), added one at a time.
struct DurationTotals {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0, max_ns = 0;
  void add(int64_t ns);  // ns >= 0
};

// The summaries DurationStats gives, from samples held elsewhere (KernelAggregator keeps one log of
// every group's exact samples). Both may reorder `samples` (each sample >= 0).
// Exact percentiles, as DurationStats before its exact limit.
DurationSummary exactSummary(std::span<int64_t> samples);
// Percentiles as a LogHistogram of these samples reports them (approximate), as DurationStats past
// its exact limit; without building the histogram.
DurationSummary bucketedSummary(std::span<int64_t> samples);
// Both of the above from one selection: {exactSummary, bucketedSummary} of the same samples.
std::pair<DurationSummary, DurationSummary> exactAndBucketedSummary(std::span<int64_t> samples);
// Percentiles from `histogram` (which holds totals.count samples), clamped to [min, max].
DurationSummary histogramSummary(const LogHistogram& histogram, const DurationTotals& totals);

class DurationStats {
 public:
  static constexpr size_t kExactLimit = size_t{1} << 20;  // 1,048,576 samples
  explicit DurationStats(size_t exact_limit = kExactLimit, SampleBudget* budget = nullptr);
  ~DurationStats();
  DurationStats(DurationStats&&) noexcept;
  DurationStats& operator=(DurationStats&&) noexcept;
  DurationStats(const DurationStats&) = delete;
  DurationStats& operator=(const DurationStats&) = delete;

  void add(int64_t ns);  // negative durations count as 0
  uint64_t count() const { return totals_.count; }
  bool approximate() const { return using_histogram_; }
  // Reorders the exact samples in place (see selectRanks).
  DurationSummary summary();

 private:
  void switchToHistogram();

  size_t exact_limit_;
  SampleBudget* budget_;
  DurationTotals totals_;
  bool using_histogram_ = false;
  std::vector<int64_t> exact_;
  LogHistogram histogram_;
};

}  // namespace gpufl::report
