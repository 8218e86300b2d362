#include "report/aggregate/interval_union.hpp"

#include <algorithm>
#include <iterator>

#include "core/checked_math.hpp"

namespace gpufl::report {

IntervalUnion::IntervalUnion(size_t max_pending) : max_pending_(std::max<size_t>(max_pending, 2)) {}

void IntervalUnion::add(int64_t start, int64_t end) {
  if (has_watermark_ && start < watermark_) {
    clipped_ = true;
    start = watermark_;
  }
  if (end <= start) return;
  // Fast path: at or after the last interval's start, as nearly every kernel arrives.
  if (pending_.empty() || start > pending_.back().second) {
    pending_.emplace_back(start, end);
  } else if (start >= pending_.back().first) {
    pending_.back().second = std::max(pending_.back().second, end);
  } else {
    auto first = std::upper_bound(
        pending_.begin(), pending_.end(), start,
        [](int64_t s, const std::pair<int64_t, int64_t>& iv) { return s < iv.first; });
    if (first != pending_.begin() && std::prev(first)->second >= start) --first;
    auto last = first;
    while (last != pending_.end() && last->first <= end) ++last;
    if (first != last) {
      start = std::min(start, first->first);
      end = std::max(end, std::prev(last)->second);
      first = pending_.erase(first, last);
    }
    pending_.insert(first, {start, end});
  }
  if (pending_.size() > max_pending_) commitOldest();
}

void IntervalUnion::commitOldest() {
  size_t n = pending_.size() / 2;
  for (size_t i = 0; i < n; ++i)
    committed_ns_ = satAdd(committed_ns_, spanNs(pending_[i].first, pending_[i].second));
  watermark_ = pending_[n - 1].second;
  has_watermark_ = true;
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
}

int64_t IntervalUnion::coveredNs() const {
  int64_t total = committed_ns_;
  for (const auto& [s, e] : pending_) total = satAdd(total, spanNs(s, e));
  return total;
}

}  // namespace gpufl::report
