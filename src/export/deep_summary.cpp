#include "export/deep_summary.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpufl::exporter {

void DeepSummary::onSassMetric(const SassMetric& m) {
  FunctionDeep& f = funcs_[m.func];
  f.has_sass = true;
  f.sass.inst_executed += m.inst_executed;
  f.sass.thread_inst_executed += m.thread_inst_executed;
  f.sass.sectors_global += m.sectors_global;
  f.sass.sectors_global_ideal += m.sectors_global_ideal;
}

void DeepSummary::onPcSample(const PcSample& s) {
  FunctionDeep& f = funcs_[s.func];
  f.stalls[s.stall] += s.count;
  f.stall_samples += s.count;
}

const FunctionDeep* DeepSummary::find(const std::string& func) const {
  auto it = funcs_.find(func);
  return it == funcs_.end() ? nullptr : &it->second;
}

std::string topStalls(const FunctionDeep& f, size_t n) {
  std::vector<std::pair<std::string, uint64_t>> sorted(f.stalls.begin(), f.stalls.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < n; ++i) {
    if (!out.empty()) out += ", ";
    const double pct = f.stall_samples ? 100.0 * static_cast<double>(sorted[i].second) /
                                             static_cast<double>(f.stall_samples)
                                       : 0;
    out += sorted[i].first + " " + std::to_string(static_cast<long long>(std::lround(pct))) + "%";
  }
  return out;
}

}  // namespace gpufl::exporter
