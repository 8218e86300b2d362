// Kernel aggregation: definitions folded into (name, grid, block) groups, per-group and session
// duration statistics, and the busy time (union of kernel intervals).
//
// Sessions can have 100,000 kernel names of a few launches each, so per-group state is kept small
// and apart from what a launch touches: a launch reads an 8-byte record of its group, appends its
// duration to one shared log (GroupSampleLog) and extends the group's last interval
// (GroupIntervals). Definitions and names stay in a deque that launches never touch.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/events.hpp"
#include "report/card_stats.hpp"
#include "report/duration_stats.hpp"
#include "report/group_intervals.hpp"
#include "report/group_samples.hpp"
#include "report/interval_union.hpp"
#include "report/report_model.hpp"

namespace gpufl::report {

class KernelAggregator {
 public:
  KernelAggregator(size_t exact_limit, SampleBudget* budget);

  void onDef(const KernelDef& def);
  void onKernel(const KernelEvent& e);

  // The readable name of a mangled one, from the first definition with it (for SASS/PC records,
  // which name functions); nullptr when no definition had it. Not after a last finish.
  const std::string* readableName(const std::string& mangled) const;
  // Fills `out` (all fields); groups sorted by total time. `session_ns` is the session duration (0
  // = unknown). With `samples` (sorted), the first kCardGroups groups get their clock windows.
  // May be called again after more events, unless `last`: then the definitions move into `out`
  // (one copy of 100,000 definitions instead of two) and the aggregator is not to be used again.
  void finish(int64_t session_ns, KernelSummary& out, const GpuSampleLog* samples = nullptr,
              bool last = false);

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  // What a group's launches touch. Each group's durations are exact (its samples in samples_) until
  // its exact limit or the shared budget runs out, then go to a histogram (overflow_): as one
  // DurationStats per group would, so the report's numbers are the same.
  struct Hot {
    uint32_t exact = 0;         // samples in samples_
    uint32_t overflow = kNone;  // index into overflow_ once past the exact samples
  };
  // A group past its exact samples: histograms of its later launches (all, and uninstrumented).
  struct Overflow {
    LogHistogram all, clean;
    DurationTotals all_totals, clean_totals;
    uint64_t instrumented = 0;
  };
  // The group's readable name is its def's demangled name (else the mangled one), the mangled name
  // def.name, its shape def's grid and block: kept once, in `def` (one group per kernel name).
  struct Cold {
    KernelDef def;
    bool defined = true;  // see KernelGroup::defined
    uint32_t defs = 0;
    const std::string& name() const { return def.demangled.empty() ? def.name : def.demangled; }
  };

  uint32_t groupFor(const KernelDef& def);
  // Frees what only aggregation needs (a last finish; the definitions stay for the report).
  void releaseAggregates();
  // The group of a kernel_def id; kNone when the id was never defined.
  uint32_t groupOfDef(uint32_t id) const;
  void setGroupOfDef(uint32_t id, uint32_t group);
  // (name, grid, block) -> group: open addressing, each slot (hash << 32) | group, the keys read
  // from cold_ only when the hashes agree.
  static uint32_t hashOf(const std::string& name, const Dim3& grid, const Dim3& block);
  size_t slotOf(uint32_t hash, const std::string& name, const Dim3& grid, const Dim3& block) const;
  void growIndex();
  static constexpr uint64_t kEmptySlot = UINT64_MAX;

  size_t exact_limit_;
  SampleBudget* budget_;
  // kernel_def id -> group index. The writer numbers definitions 1, 2, 3, ..., so ids below
  // kDenseIds index a vector (no hash-bucket walk per event); others, from hostile or foreign
  // input, go to the map.
  static constexpr uint32_t kDenseIds = uint32_t{1} << 22;
  std::vector<uint32_t> dense_def_group_;
  std::unordered_map<uint32_t, uint32_t> sparse_def_group_;
  std::vector<uint64_t> index_;  // at most half full
  std::vector<Hot> hot_;
  GroupIntervals intervals_;  // when each group ran, for the cards' GPU samples
  // A deque: growing never moves the definitions (a vector's doubling briefly held two copies).
  std::deque<Cold> cold_;
  std::deque<Overflow> overflow_;
  GroupSampleLog samples_;
  // Mangled name -> the group of the first definition with it (whose readable name is the
  // group's). A key views that group's definition when it has this name (no copy), else
  // extra_names_.
  std::unordered_map<std::string_view, uint32_t> readable_;
  std::deque<std::string> extra_names_;
  DurationStats all_, clean_;
  IntervalUnion busy_;
  uint64_t instrumented_ = 0;
  uint64_t undefined_refs_ = 0;
};

}  // namespace gpufl::report
