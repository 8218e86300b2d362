// Kernel aggregation: definitions folded into (name, grid, block) groups, per-group and session
// duration statistics, and the busy time (union of kernel intervals).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/events.hpp"
#include "report/card_stats.hpp"
#include "report/duration_stats.hpp"
#include "report/interval_union.hpp"
#include "report/report_model.hpp"

namespace gpufl::report {

class KernelAggregator {
 public:
  KernelAggregator(size_t exact_limit, SampleBudget* budget);

  void onDef(const KernelDef& def);
  void onKernel(const KernelEvent& e);

  // Mangled name -> readable name, from the definitions seen (for SASS/PC records, which name
  // functions).
  const std::map<std::string, std::string>& readableNames() const { return readable_; }
  // Fills `out` (all fields); groups sorted by total time. `session_ns` is the session duration (0
  // = unknown). With `samples` (sorted), the first kCardGroups groups get their clock windows.
  void finish(int64_t session_ns, KernelSummary& out, const GpuSampleLog* samples = nullptr);

 private:
  struct Group {
    std::string name, mangled;
    Dim3 grid, block;
    KernelDef def;
    bool defined = true;  // see KernelGroup::defined
    uint32_t defs = 0;
    uint64_t instrumented = 0;
    DurationStats durations;
    DurationStats clean{0, nullptr};  // histogram only: a median for the bandwidth estimate
    CoarseIntervals intervals;        // when the group ran, for the GPU samples of its card
  };
  using GroupKey =
      std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;

  size_t groupFor(const KernelDef& def);

  size_t exact_limit_;
  SampleBudget* budget_;
  std::unordered_map<uint32_t, size_t> def_group_;  // kernel_def id -> group index
  std::map<GroupKey, size_t> group_index_;
  std::vector<Group> groups_;
  std::map<std::string, std::string> readable_;
  DurationStats all_, clean_;
  IntervalUnion busy_;
  uint64_t instrumented_ = 0;
  uint64_t undefined_refs_ = 0;
};

}  // namespace gpufl::report
