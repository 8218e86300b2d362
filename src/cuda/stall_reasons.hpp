// Warp stall reasons of PC sampling: CUPTI's counter names to the short names the log carries.
// Labels for people come from one table, core/stall_labels.hpp (gpufl::stallLabel).
//
// CUPTI names each reason after its hardware counter, "smsp__pcsamp_warps_issue_stalled_<reason>",
// and has a "<reason>_not_issued" twin for samples taken while the warp scheduler issued nothing
// that cycle (the SMSP was idle, so the stall really cost time). The twins stay distinct:
// "long_scoreboard" and "long_scoreboard_not_issued" are separate records. The list of reasons
// comes from the driver at run time (cuptiPCSamplingGetStallReasons) and differs by GPU; unknown
// names pass through shortened, never dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpufl::cuda {

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard". Names without the prefix
// are returned unchanged. The two bookkeeping counters ("smsp__pcsamp_sample_count",
// "smsp__pcsamp_samples_data_dropped") map to "" (they are not stall reasons).
std::string stallReasonName(std::string_view cupti_name);

// True for "selected" and "selected_not_issued": the warp was issuing, not stalled.
bool isIssuingReason(std::string_view short_name);

// The reasons one context reported, by CUPTI's index. Built once per context from
// cuptiPCSamplingGetStallReasons; read on the writer thread.
class StallReasonTable {
 public:
  StallReasonTable() = default;
  // `indices[i]` names `cupti_names[i]`.
  StallReasonTable(const std::vector<uint32_t>& indices,
                   const std::vector<std::string>& cupti_names);
  // Short name of `index`; "reason_<index>" when CUPTI did not list it; "" for bookkeeping
  // counters.
  const std::string& name(uint32_t index) const;
  size_t size() const { return names_.size(); }

 private:
  std::unordered_map<uint32_t, std::string> names_;
  mutable std::unordered_map<uint32_t, std::string> unknown_;
};

}  // namespace gpufl::cuda
