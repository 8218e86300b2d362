#include "report/duration_stats.hpp"

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
      count_(o.count_),
      total_ns_(o.total_ns_),
      min_ns_(o.min_ns_),
      max_ns_(o.max_ns_),
      using_histogram_(o.using_histogram_),
      sorted_(o.sorted_),
      exact_(std::move(o.exact_)),
      histogram_(std::move(o.histogram_)) {
  o.exact_.clear();
}

DurationStats& DurationStats::operator=(DurationStats&& o) noexcept {
  if (this == &o) return *this;
  if (budget_) budget_->giveBack(exact_.size());
  exact_limit_ = o.exact_limit_;
  budget_ = o.budget_;
  count_ = o.count_;
  total_ns_ = o.total_ns_;
  min_ns_ = o.min_ns_;
  max_ns_ = o.max_ns_;
  using_histogram_ = o.using_histogram_;
  sorted_ = o.sorted_;
  exact_ = std::move(o.exact_);
  o.exact_.clear();
  histogram_ = std::move(o.histogram_);
  return *this;
}

void DurationStats::add(int64_t ns) {
  ns = std::max<int64_t>(ns, 0);
  if (count_ == 0) {
    min_ns_ = max_ns_ = ns;
  } else {
    min_ns_ = std::min(min_ns_, ns);
    max_ns_ = std::max(max_ns_, ns);
  }
  ++count_;
  total_ns_ = satAdd(total_ns_, ns);
  if (!using_histogram_) {
    if (exact_.size() < exact_limit_ && (!budget_ || budget_->take())) {
      if (!exact_.empty() && ns < exact_.back()) sorted_ = false;
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
  sorted_ = true;
}

double DurationStats::orderStatistic(uint64_t k) const {
  if (!using_histogram_) return static_cast<double>(exact_[k]);
  double v = histogram_.valueAtRank(k);
  return std::clamp(v, static_cast<double>(min_ns_), static_cast<double>(max_ns_));
}

double DurationStats::percentile(double q) const {
  double pos = q * static_cast<double>(count_ - 1);
  auto lo = static_cast<uint64_t>(std::floor(pos));
  uint64_t hi = std::min(lo + 1, count_ - 1);
  double frac = pos - static_cast<double>(lo);
  double a = orderStatistic(lo);
  if (frac == 0 || hi == lo) return a;
  return a + frac * (orderStatistic(hi) - a);
}

// The percentiles read six order statistics; selecting them (nth_element, each on what is left to
// the right of the previous one) costs O(n), where sorting a million samples cost a fifth of a
// report's time. Afterwards exact_[k] is the k-th smallest for every rank percentile() reads.
void DurationStats::selectRanks() {
  uint64_t ranks[6];
  size_t n = 0;
  for (const double q : kQuantiles) {
    const auto lo = static_cast<uint64_t>(std::floor(q * static_cast<double>(count_ - 1)));
    ranks[n++] = lo;
    ranks[n++] = std::min(lo + 1, count_ - 1);
  }
  std::sort(ranks, ranks + n);
  auto from = exact_.begin();
  for (size_t i = 0; i < n; ++i) {
    const auto at = exact_.begin() + static_cast<std::ptrdiff_t>(ranks[i]);
    if (at < from) continue;  // a repeated rank, already in place
    std::nth_element(from, at, exact_.end());
    from = at + 1;
  }
}

DurationSummary DurationStats::summary() {
  DurationSummary s;
  s.count = count_;
  s.approximate = using_histogram_;
  if (count_ == 0) return s;
  if (!sorted_) selectRanks();
  s.total_ns = total_ns_;
  s.min_ns = min_ns_;
  s.max_ns = max_ns_;
  s.avg_ns = static_cast<double>(total_ns_) / static_cast<double>(count_);
  s.median_ns = percentile(kQuantiles[0]);
  s.p90_ns = percentile(kQuantiles[1]);
  s.p99_ns = percentile(kQuantiles[2]);
  return s;
}

}  // namespace gpufl::report
