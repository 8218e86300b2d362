// Range-profiler counters per range name (a scope path, or a kernel), and per kernel when ranges
// are per kernel launch (GPUFL_RANGE_PER_KERNEL), over all its instances: a scope entered 300 times
// is 300 range_counters records. Counts (metric names ending in ".sum": bytes, cycles, durations)
// are totals over the instances; every other metric (percentages, averages, ratios) is a mean over
// the instances that collected it, weighted by each instance's gpu__time_duration.sum when all of
// them have one. Summing a percentage over instances, as the report did before, showed a 300-step
// loop's L1 hit rate as thousands of percent.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

// True for a metric whose instances add up (".sum"); false for rates, percentages and averages.
bool isAdditiveMetric(const std::string& name);

class RangeAggregator {
 public:
  void add(const RangeCounters& r);
  // Ranges in first-seen order.
  std::vector<RangeCounterRow> rows() const;

 private:
  struct MetricAcc {
    double sum = 0;           // of values
    double weighted_sum = 0;  // of value x the instance's duration
    double weight = 0;        // of durations
    uint64_t count = 0, weighted_count = 0;
  };
  struct RangeAcc {
    std::string name, kernel;
    uint32_t path = 0;
    uint64_t instances = 0;
    std::map<std::string, MetricAcc> metrics;
  };
  std::vector<RangeAcc> ranges_;
  std::map<std::pair<std::string, std::string>, size_t> index_;  // by (range, kernel)
};

}  // namespace gpufl::report
