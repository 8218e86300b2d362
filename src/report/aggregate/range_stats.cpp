#include "report/aggregate/range_stats.hpp"

#include <cmath>
#include <string_view>

namespace gpufl::report {
namespace {
constexpr std::string_view kDuration = "gpu__time_duration.sum";
}  // namespace

bool isAdditiveMetric(const std::string& name) {
  return std::string_view(name).ends_with(".sum");
}

void RangeAggregator::add(const RangeCounters& r) {
  auto [it, inserted] = index_.try_emplace({r.range, r.kernel}, ranges_.size());
  if (inserted) ranges_.push_back(RangeAcc{r.range, r.kernel, r.path, 0, {}});
  RangeAcc& range = ranges_[it->second];
  if (range.path == 0) range.path = r.path;
  ++range.instances;
  double duration = 0;
  if (auto d = r.metrics.find(std::string(kDuration)); d != r.metrics.end() && d->second > 0)
    duration = d->second;
  for (const auto& [name, value] : r.metrics) {
    if (!std::isfinite(value)) continue;
    MetricAcc& m = range.metrics[name];
    m.sum += value;
    ++m.count;
    if (duration > 0) {
      m.weighted_sum += value * duration;
      m.weight += duration;
      ++m.weighted_count;
    }
  }
}

std::vector<RangeCounterRow> RangeAggregator::rows() const {
  std::vector<RangeCounterRow> out;
  out.reserve(ranges_.size());
  for (const RangeAcc& range : ranges_) {
    RangeCounterRow row{range.name, range.kernel, {}, range.instances, range.path};
    for (const auto& [name, m] : range.metrics) {
      if (isAdditiveMetric(name)) {
        row.metrics[name] = m.sum;
      } else if (m.weighted_count == m.count && m.weight > 0) {
        row.metrics[name] = m.weighted_sum / m.weight;
      } else {
        row.metrics[name] = m.sum / static_cast<double>(m.count);
      }
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace gpufl::report
