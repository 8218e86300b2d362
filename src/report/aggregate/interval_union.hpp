// Length of the union of [start, end) intervals that arrive roughly in start order (CUPTI delivers
// concurrent kernels slightly out of order), in bounded memory.
//
// Disjoint intervals are kept sorted in a vector and merged on arrival; in-order arrivals append or
// extend the last one, so the common case allocates nothing. When more than `max_pending` are held,
// the oldest half is committed (their length summed) and a watermark is set at the end of the last
// one; a later interval starting before the watermark is clipped to it. The result is exact unless
// an interval arrives more than max_pending/2 disjoint intervals late, which clipped() reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpufl::report {

class IntervalUnion {
 public:
  static constexpr size_t kDefaultMaxPending = 8192;
  explicit IntervalUnion(size_t max_pending = kDefaultMaxPending);

  void add(int64_t start, int64_t end);
  int64_t coveredNs() const;  // total length of the union
  bool clipped() const { return clipped_; }
  size_t pending() const { return pending_.size(); }

 private:
  void commitOldest();

  size_t max_pending_;
  std::vector<std::pair<int64_t, int64_t>>
      pending_;  // [start, end), sorted, disjoint and not touching
  int64_t committed_ns_ = 0;
  bool has_watermark_ = false;
  int64_t watermark_ = 0;
  bool clipped_ = false;
};

}  // namespace gpufl::report
