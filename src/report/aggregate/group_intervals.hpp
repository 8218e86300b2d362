// When each kernel group ran (CoarseIntervals per group), without a heap block per group.
//
// Under 100,000 kernel names of a few launches each, a vector of intervals per group cost a cache
// miss and a malloc per launch. Here a group's last interval sits in a 24-byte record; the ones
// before it are appended to one shared list, chained newest to oldest. A group that reaches
// CoarseIntervals::kMaxIntervals moves to a CoarseIntervals of its own (where merging starts);
// before that, the chain holds exactly what that CoarseIntervals would, so results are the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "report/aggregate/card_stats.hpp"

namespace gpufl::report {

class GroupIntervals {
 public:
  void addGroup() { state_.emplace_back(); }  // the next group id
  size_t groups() const { return state_.size(); }
  void add(uint32_t group, int64_t start, int64_t end);
  // What a CoarseIntervals fed the group's intervals would hold (a copy: call intervals() on it).
  CoarseIntervals of(uint32_t group) const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kOwn = UINT32_MAX;  // count: the group has a CoarseIntervals of its own
  struct State {
    int64_t last_start = 0, last_end = 0;  // the newest interval (count > 0)
    uint32_t count = 0;                    // intervals, the newest included; or kOwn
    uint32_t link = kNone;  // closed_ index of the one before the newest; with kOwn, own_ index
  };
  std::vector<std::pair<int64_t, int64_t>> chain(const State& s) const;  // oldest first

  std::vector<State> state_;
  std::deque<std::pair<int64_t, int64_t>> closed_;  // never moved: a deque grows in blocks
  std::deque<uint32_t> prev_;                       // closed_ index of the one before, or kNone
  std::deque<CoarseIntervals> own_;
};

}  // namespace gpufl::report
