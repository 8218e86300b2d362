// "Why Is This Kernel Slow" cards: per kernel group, the occupancy, SASS, PC-sampling, bandwidth
// and GPU-sample figures side by side, with the one or two changes most likely to help (rules in
// docs/report.md).
//
// Memory stays bounded: each kernel group keeps at most kMaxIntervals coarse time intervals
// (CoarseIntervals), and the session at most kMaxSamples GPU samples (GpuSampleLog, decimated
// beyond that); nothing else is stored per launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/events.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

inline constexpr size_t kCardGroups = 10;  // cards built for the top groups by GPU time

// The time a kernel group ran, as at most kMaxIntervals [start, end) intervals. Past that,
// intervals closer than a gap resolution (1 us, doubling as needed) are merged, so a sample taken
// in such a gap counts as taken while the group ran; resolutionNs() says how coarse it got.
class CoarseIntervals {
 public:
  static constexpr size_t kMaxIntervals = 256;
  CoarseIntervals() = default;
  // Holding `arrived` (at most kMaxIntervals, in arrival order, none extending the one before):
  // what adding them one by one gives.
  explicit CoarseIntervals(std::vector<std::pair<int64_t, int64_t>> arrived)
      : v_(std::move(arrived)) {}
  void add(int64_t start, int64_t end);
  // Whether add(start, ...) extends `last` instead of adding an interval (end clamped to start).
  static bool extends(const std::pair<int64_t, int64_t>& last, int64_t start, int64_t gap_ns);
  // Sorted, disjoint intervals (merges in place; cheap when called again).
  const std::vector<std::pair<int64_t, int64_t>>& intervals();
  int64_t resolutionNs() const { return gap_ns_; }

 private:
  void merge();
  std::vector<std::pair<int64_t, int64_t>> v_;
  int64_t gap_ns_ = 0;
};

// GPU samples reduced to what a card shows (SM clock, power, throttle reasons), at most
// kMaxSamples: beyond that every other sample is dropped and only every 2^k-th later one kept.
class GpuSampleLog {
 public:
  static constexpr size_t kMaxSamples = size_t{1} << 16;
  void add(const GpuSample& s);
  void sort();  // by time; window() needs it
  // GPU samples of `gpu` taken inside `intervals` (sorted, disjoint), or the nearest one.
  ClockWindow window(uint32_t gpu, const std::vector<std::pair<int64_t, int64_t>>& intervals,
                     int64_t resolution_ns) const;
  bool empty() const { return samples_.empty(); }

 private:
  struct Sample {
    int64_t ts_ns = 0;
    uint32_t gpu = 0;
    int clk_sm = -1;      // MHz, -1 = not reported
    double power_w = -1;  // -1 = not reported
    bool has_throttle = false;
    uint64_t reasons = 0;  // bits into reason_names_
  };
  void addTo(ClockWindow& w, const Sample& s) const;
  std::vector<Sample> samples_;  // sorted by time after sort()
  std::vector<std::string> reason_names_;
  uint64_t seen_ = 0, stride_ = 1;
};

// Fills report.cards for the first kCardGroups groups (needs kernels, profile and devices filled;
// the groups' clock windows are already in KernelGroup::clocks).
void addCards(Report& report);

// The card's advice, most likely to help first (at most two). Rules: docs/report.md.
std::vector<CardAdvice> cardAdvice(const Report& report, const KernelGroup& group,
                                   const KernelCard& card);

}  // namespace gpufl::report
