#include "cuda/stall_reasons.hpp"

namespace gpufl::cuda {
namespace {

constexpr std::string_view kStalledPrefix = "smsp__pcsamp_warps_issue_stalled_";

}  // namespace

std::string stallReasonName(std::string_view cupti_name) {
  if (cupti_name == "smsp__pcsamp_sample_count" ||
      cupti_name == "smsp__pcsamp_samples_data_dropped") {
    return {};
  }
  if (cupti_name.substr(0, kStalledPrefix.size()) == kStalledPrefix) {
    return std::string(cupti_name.substr(kStalledPrefix.size()));
  }
  // Other counters of the family ("smsp__pcsamp_..."): drop the family prefix only.
  constexpr std::string_view kFamily = "smsp__pcsamp_";
  if (cupti_name.substr(0, kFamily.size()) == kFamily) {
    return std::string(cupti_name.substr(kFamily.size()));
  }
  return std::string(cupti_name);
}

bool isIssuingReason(std::string_view short_name) {
  return short_name == "selected" || short_name == "selected_not_issued";
}

StallReasonTable::StallReasonTable(const std::vector<uint32_t>& indices,
                                   const std::vector<std::string>& cupti_names) {
  for (size_t i = 0; i < indices.size() && i < cupti_names.size(); ++i) {
    names_[indices[i]] = stallReasonName(cupti_names[i]);
  }
}

const std::string& StallReasonTable::name(uint32_t index) const {
  auto it = names_.find(index);
  if (it != names_.end()) return it->second;
  auto [slot, inserted] = unknown_.try_emplace(index);
  if (inserted) slot->second = "reason_" + std::to_string(index);
  return slot->second;
}

}  // namespace gpufl::cuda
