// Kernel aggregation: definitions folded into (name, grid, block) groups, per-group and session
// duration statistics, and the busy time (union of kernel intervals).
#pragma once

#include <cstdint>
#include <deque>
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
  // The group's readable name is its def's demangled name (else the mangled one), the mangled name
  // def.name, its shape def's grid and block: kept once, in `def` (one group per kernel name).
  struct Group {
    KernelDef def;
    bool defined = true;  // see KernelGroup::defined
    uint32_t defs = 0;
    uint64_t instrumented = 0;
    DurationStats durations;
    DurationStats clean{0, nullptr};  // histogram only: a median for the bandwidth estimate
    CoarseIntervals intervals;        // when the group ran, for the GPU samples of its card
    const std::string& name() const { return def.demangled.empty() ? def.name : def.demangled; }
  };
  using GroupKey =
      std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;

  size_t groupFor(const KernelDef& def);
  // The group of a kernel_def id; kNoGroup when the id was never defined.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  uint32_t groupOfDef(uint32_t id) const;
  void setGroupOfDef(uint32_t id, size_t group);

  size_t exact_limit_;
  SampleBudget* budget_;
  // kernel_def id -> group index. The writer numbers definitions 1, 2, 3, ..., so ids below
  // kDenseIds index a vector (no hash-bucket walk per event); others, from hostile or foreign
  // input, go to the map.
  static constexpr uint32_t kDenseIds = uint32_t{1} << 22;
  std::vector<uint32_t> dense_def_group_;
  std::unordered_map<uint32_t, uint32_t> sparse_def_group_;
  std::map<GroupKey, size_t> group_index_;
  // A deque: growing never moves the groups (a vector's doubling briefly held two copies of ~500 B
  // per group, the peak under 100,000 kernel names).
  std::deque<Group> groups_;
  std::map<std::string, std::string> readable_;
  DurationStats all_, clean_;
  IntervalUnion busy_;
  uint64_t instrumented_ = 0;
  uint64_t undefined_refs_ = 0;
};

}  // namespace gpufl::report
