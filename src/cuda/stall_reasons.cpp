#include "cuda/stall_reasons.hpp"

#include <cctype>

namespace gpufl::cuda {
namespace {

constexpr std::string_view kStalledPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Words kept in capitals in labels.
bool isAcronym(std::string_view word) {
  return word == "lg" || word == "mio" || word == "imc" || word == "tex" || word == "mma";
}

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

std::string stallReasonLabel(std::string_view short_name) {
  const bool not_issued = endsWith(short_name, kNotIssued);
  std::string_view base =
      not_issued ? short_name.substr(0, short_name.size() - kNotIssued.size()) : short_name;
  std::string label;
  size_t start = 0;
  while (start <= base.size()) {
    size_t end = base.find('_', start);
    if (end == std::string_view::npos) end = base.size();
    std::string_view word = base.substr(start, end - start);
    if (!word.empty()) {
      if (!label.empty()) label += ' ';
      if (isAcronym(word)) {
        for (char c : word) label += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      } else {
        label += static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
        label.append(word.substr(1));
      }
    }
    start = end + 1;
  }
  if (not_issued) label += " (not issued)";
  return label;
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
