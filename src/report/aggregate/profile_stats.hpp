// SASS metric and PC sampling aggregation per function (and per instruction within it), plus
// range-profiler counters per range. Memory grows with code size (functions x instructions), not
// with the number of launches.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "core/stall_labels.hpp"
#include "report/aggregate/range_stats.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

class ProfileAggregator {
 public:
  static constexpr size_t kHotInstructions = 5;

  void onSassMetric(const SassMetric& m);
  void onPcSample(const PcSample& s);
  void onRangeCounters(const RangeCounters& r);
  // `readable(mangled)` gives the readable name (from kernel definitions), nullptr when unknown.
  using ReadableName = std::function<const std::string*(const std::string&)>;
  void finish(const ReadableName& readable, int warp_size, ProfileSummary& out) const;

 private:
  struct PcAcc {
    uint64_t samples = 0;
    std::map<std::string, uint64_t> stalls;
    uint64_t inst_executed = 0, thread_inst_executed = 0;
    std::string sass, source;
  };
  struct FuncAcc {
    bool has_sass = false;
    SassTotals sass;
    uint64_t launches = 0;
    uint64_t samples = 0, patched_samples = 0;
    std::map<std::string, uint64_t> stalls;
    std::map<uint64_t, PcAcc> pcs;
  };
  static void keepText(PcAcc& pc, const std::string& sass, const std::string& source);
  static FunctionProfile finishFunction(const std::string& func, const FuncAcc& acc,
                                        const ReadableName& readable);

  std::map<std::string, FuncAcc> funcs_;
  RangeAggregator ranges_;
};

}  // namespace gpufl::report
