#include "report/aggregate/duration_stats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/checked_math.hpp"
namespace gpufl::report {
size_t LogHistogram::indexOf(uint64_t v) {
  int e = 63 - std::countl_zero(v);  // v >= 1
  uint64_t sub = e >= kSubBits ? (v >> (e - kSubBits)) : (v << (kSubBits - e));
  return (static_cast<size_t>(e) << kSubBits) | (sub & ((1u << kSubBits) - 1));
}

double LogHistogram::valueOf(size_t index) {
  int e = static_cast<int>(index >> kSubBits);
  double sub = static_cast<double>(index & ((1u << kSubBits) - 1)) + (1u << kSubBits);
  // Below 2^kSubBits every bucket holds one integer, its lower bound; above, the midpoint halves
  // the error.
  double lower = std::ldexp(sub, e - kSubBits);
  return e < kSubBits ? lower : lower + std::ldexp(0.5, e - kSubBits);
}

void LogHistogram::add(int64_t value, uint64_t times) {
  count_ += times;
  if (value < 1) {
    zero_count_ += times;
    return;
  }
  const size_t index = indexOf(static_cast<uint64_t>(value));
  if (!buckets_.empty()) return addDense(index, times);
  // Indices stay below 64 << kSubBits, so they fit the sparse list's 32 bits.
  const auto key = static_cast<uint32_t>(index);
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), key,
                             [](const auto& entry, uint32_t k) { return entry.first < k; });
  if (it != sparse_.end() && it->first == key) {
    it->second += times;
    return;
  }
  if (sparse_.size() < kSparseMax) {
    sparse_.insert(it, {key, times});
    return;
  }
  for (const auto& [i, n] : sparse_) addDense(i, n);
  std::vector<std::pair<uint32_t, uint64_t>>().swap(sparse_);
  addDense(index, times);
}

void LogHistogram::addDense(size_t index, uint64_t times) {
  if (buckets_.empty()) {
    first_ = index;
    buckets_.assign(1, 0);
  } else if (index < first_) {
    buckets_.insert(buckets_.begin(), first_ - index, 0);
    first_ = index;
  } else if (index - first_ >= buckets_.size()) {
    buckets_.resize(index - first_ + 1, 0);
  }
  buckets_[index - first_] += times;
}

double LogHistogram::bucketValue(int64_t value) {
  return value < 1 ? 0 : valueOf(indexOf(static_cast<uint64_t>(value)));
}

double LogHistogram::valueAtRank(uint64_t k) const {
  if (k < zero_count_) return 0;
  uint64_t seen = zero_count_;
  if (buckets_.empty()) {
    for (const auto& [index, n] : sparse_) {
      seen += n;
      if (k < seen) return valueOf(index);
    }
    return sparse_.empty() ? 0 : valueOf(sparse_.back().first);
  }
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (k < seen) return valueOf(first_ + i);
  }
  return valueOf(first_ + buckets_.size() - 1);
}

DurationStats::DurationStats(size_t exact_limit, SampleBudget* budget)
    : exact_limit_(exact_limit), budget_(budget) {}

DurationStats::~DurationStats() {
  if (budget_) budget_->giveBack(exact_.size());
}

DurationStats::DurationStats(DurationStats&& o) noexcept
    : exact_limit_(o.exact_limit_),
      budget_(o.budget_),
      totals_(o.totals_),
      using_histogram_(o.using_histogram_),
      exact_(std::move(o.exact_)),
      histogram_(std::move(o.histogram_)) {
  o.exact_.clear();
}

DurationStats& DurationStats::operator=(DurationStats&& o) noexcept {
  if (this == &o) return *this;
  if (budget_) budget_->giveBack(exact_.size());
  exact_limit_ = o.exact_limit_;
  budget_ = o.budget_;
  totals_ = o.totals_;
  using_histogram_ = o.using_histogram_;
  exact_ = std::move(o.exact_);
  o.exact_.clear();
  histogram_ = std::move(o.histogram_);
  return *this;
}

void DurationTotals::add(int64_t ns) {
  if (count == 0) {
    min_ns = max_ns = ns;
  } else {
    min_ns = std::min(min_ns, ns);
    max_ns = std::max(max_ns, ns);
  }
  ++count;
  total_ns = satAdd(total_ns, ns);
}

void DurationStats::add(int64_t ns) {
  ns = std::max<int64_t>(ns, 0);
  totals_.add(ns);
  if (!using_histogram_) {
    if (exact_.size() < exact_limit_ && (!budget_ || budget_->take())) {
      exact_.push_back(ns);
      return;
    }
    switchToHistogram();
  }
  histogram_.add(ns);
}

void DurationStats::switchToHistogram() {
  for (int64_t v : exact_) histogram_.add(v);
  // The share stays spent. Handed back, it let other trackers grow their vectors (by doubling) past
  // what the budget meant, and the freed vectors fragmented the heap: a 30M-kernel report peaked at
  // 157 MB with it, 69 MB without (docs/measurements.md); only sessions past the budget are
  // affected.
  std::vector<int64_t>().swap(exact_);
  using_histogram_ = true;
}

DurationSummary DurationStats::summary() {
  if (using_histogram_) return histogramSummary(histogram_, totals_);
  return exactSummary(exact_);
}

namespace {

constexpr double kQuantiles[3] = {0.5, 0.9, 0.99};  // median, p90, p99

// Percentiles by linear interpolation between order statistics; `at(k)` is the k-th smallest.
template <class OrderStatistic>
DurationSummary summarize(const DurationTotals& t, bool approximate, OrderStatistic at) {
  DurationSummary s;
  s.count = t.count;
  if (t.count == 0) return s;  // nothing estimated
  s.approximate = approximate;
  s.total_ns = t.total_ns;
  s.min_ns = t.min_ns;
  s.max_ns = t.max_ns;
  s.avg_ns = static_cast<double>(t.total_ns) / static_cast<double>(t.count);
  double* const out[3] = {&s.median_ns, &s.p90_ns, &s.p99_ns};
  for (size_t i = 0; i < 3; ++i) {
    const double pos = kQuantiles[i] * static_cast<double>(t.count - 1);
    const auto lo = static_cast<uint64_t>(std::floor(pos));
    const uint64_t hi = std::min(lo + 1, t.count - 1);
    const double frac = pos - static_cast<double>(lo);
    const double a = at(lo);
    *out[i] = frac == 0 || hi == lo ? a : a + frac * (at(hi) - a);
  }
  return s;
}

// The ranks summarize() reads for n samples (each percentile interpolates between two neighbours),
// ascending, without repeats; returns how many.
size_t ranksFor(uint64_t n, uint64_t (&ranks)[6]) {
  size_t r = 0;
  for (const double q : kQuantiles) {
    const auto lo = static_cast<uint64_t>(std::floor(q * static_cast<double>(n - 1)));
    ranks[r++] = lo;
    ranks[r++] = std::min(lo + 1, n - 1);
  }
  std::sort(ranks, ranks + r);
  return static_cast<size_t>(std::unique(ranks, ranks + r) - ranks);
}

// The order statistics summarize() reads. Few samples: nth_element for each rank on what is left
// right of the previous one (reorders them). Many: without moving them, by their distance from the
// minimum in 2^16 buckets: one pass counts each bucket, which names the bucket and the place in it
// of each rank; a second pass copies out just those buckets' samples, and nth_element runs on
// those. Two streaming passes instead of partitioning a million samples (selection was an eighth
// of a report's time, docs/measurements.md).
class OrderStatistics {
 public:
  OrderStatistics(std::span<int64_t> samples, const DurationTotals& t) {
    const uint64_t n = samples.size();
    if (n == 0) return;
    count_ = ranksFor(n, rank_);
    if (n < kRadixFrom) {
      selectInPlace(samples);
      return;
    }
    const uint64_t min = static_cast<uint64_t>(t.min_ns);
    const int shift = std::max(
        0, static_cast<int>(std::bit_width(static_cast<uint64_t>(t.max_ns) - min)) - kBucketBits);
    auto bucket = [&](int64_t v) { return (static_cast<uint64_t>(v) - min) >> shift; };
    std::vector<uint32_t> counts(((static_cast<uint64_t>(t.max_ns) - min) >> shift) + 1);
    for (const int64_t v : samples) ++counts[bucket(v)];
    // Each rank's bucket and place in it; the buckets to copy out get a slot.
    std::vector<int8_t> slot(counts.size(), -1);
    uint64_t bucket_of[6], place[6];
    int slots = 0;
    uint64_t below = 0;
    size_t b = 0;
    for (size_t i = 0; i < count_; ++i) {
      while (below + counts[b] <= rank_[i]) below += counts[b++];
      bucket_of[i] = b;
      place[i] = rank_[i] - below;
      if (shift == 0) {
        value_[i] = static_cast<int64_t>(min + b);  // a bucket holds a single value
      } else if (slot[b] < 0) {
        slot[b] = static_cast<int8_t>(slots++);
      }
    }
    if (shift == 0) return;
    std::vector<int64_t> picked[6];
    for (size_t i = 0; i < count_; ++i)
      if (slot[bucket_of[i]] >= 0) picked[slot[bucket_of[i]]].reserve(counts[bucket_of[i]]);
    for (const int64_t v : samples)
      if (const int8_t s = slot[bucket(v)]; s >= 0) picked[s].push_back(v);
    for (size_t i = 0; i < count_; ++i) {
      std::vector<int64_t>& in = picked[slot[bucket_of[i]]];
      const auto at = in.begin() + static_cast<std::ptrdiff_t>(place[i]);
      std::nth_element(in.begin(), at, in.end());
      value_[i] = *at;
    }
  }

  // The k-th smallest sample, for a k that summarize() reads.
  int64_t operator()(uint64_t k) const {
    for (size_t i = 0; i < count_; ++i)
      if (rank_[i] == k) return value_[i];
    return 0;  // not a rank summarize() reads
  }

 private:
  static constexpr uint64_t kRadixFrom = 4096;
  static constexpr int kBucketBits = 16;

  void selectInPlace(std::span<int64_t> samples) {
    auto from = samples.begin();
    for (size_t i = 0; i < count_; ++i) {
      const auto at = samples.begin() + static_cast<std::ptrdiff_t>(rank_[i]);
      std::nth_element(from, at, samples.end());
      value_[i] = *at;
      from = at + 1;
    }
  }

  uint64_t rank_[6] = {};
  int64_t value_[6] = {};
  size_t count_ = 0;
};

DurationTotals totalsOf(std::span<const int64_t> samples) {
  DurationTotals t;
  for (const int64_t v : samples) t.add(v);
  return t;
}

// What exactSummary and bucketedSummary read once the ranks are selected.
DurationSummary exactOf(const DurationTotals& t, const OrderStatistics& at) {
  return summarize(t, false, [&](uint64_t k) { return static_cast<double>(at(k)); });
}

DurationSummary bucketedOf(const DurationTotals& t, const OrderStatistics& at) {
  return summarize(t, true, [&](uint64_t k) {
    return std::clamp(LogHistogram::bucketValue(at(k)), static_cast<double>(t.min_ns),
                      static_cast<double>(t.max_ns));
  });
}

}  // namespace

DurationSummary exactSummary(std::span<int64_t> samples) {
  const DurationTotals t = totalsOf(samples);
  return exactOf(t, OrderStatistics(samples, t));
}

DurationSummary bucketedSummary(std::span<int64_t> samples) {
  const DurationTotals t = totalsOf(samples);
  return bucketedOf(t, OrderStatistics(samples, t));
}

std::pair<DurationSummary, DurationSummary> exactAndBucketedSummary(std::span<int64_t> samples) {
  const DurationTotals t = totalsOf(samples);
  const OrderStatistics at(samples, t);
  return {exactOf(t, at), bucketedOf(t, at)};
}

DurationSummary histogramSummary(const LogHistogram& histogram, const DurationTotals& totals) {
  return summarize(totals, true, [&](uint64_t k) {
    return std::clamp(histogram.valueAtRank(k), static_cast<double>(totals.min_ns),
                      static_cast<double>(totals.max_ns));
  });
}

}  // namespace gpufl::report
