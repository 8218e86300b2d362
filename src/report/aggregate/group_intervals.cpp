#include "report/aggregate/group_intervals.hpp"

#include <algorithm>

namespace gpufl::report {

void GroupIntervals::add(uint32_t group, int64_t start, int64_t end) {
  State& s = state_[group];
  if (s.count == kOwn) return own_[s.link].add(start, end);
  if (end < start) end = start;  // as CoarseIntervals::add
  if (s.count > 0 && CoarseIntervals::extends({s.last_start, s.last_end}, start, 0)) {
    s.last_end = std::max(s.last_end, end);
    return;
  }
  if (s.count == CoarseIntervals::kMaxIntervals) {
    // The next one makes a CoarseIntervals merge: from here on the group keeps its own.
    own_.emplace_back(chain(s));
    own_.back().add(start, end);
    s.count = kOwn;
    s.link = static_cast<uint32_t>(own_.size() - 1);
    return;
  }
  if (s.count > 0) {
    closed_.emplace_back(s.last_start, s.last_end);
    prev_.push_back(s.link);
    s.link = static_cast<uint32_t>(closed_.size() - 1);
  }
  s.last_start = start;
  s.last_end = end;
  ++s.count;
}

std::vector<std::pair<int64_t, int64_t>> GroupIntervals::chain(const State& s) const {
  std::vector<std::pair<int64_t, int64_t>> v;
  if (s.count == 0) return v;
  v.reserve(s.count);
  v.emplace_back(s.last_start, s.last_end);
  for (uint32_t i = s.link; i != kNone; i = prev_[i]) v.push_back(closed_[i]);
  std::reverse(v.begin(), v.end());
  return v;
}

CoarseIntervals GroupIntervals::of(uint32_t group) const {
  const State& s = state_[group];
  if (s.count == kOwn) return own_[s.link];
  return CoarseIntervals(chain(s));
}

}  // namespace gpufl::report
