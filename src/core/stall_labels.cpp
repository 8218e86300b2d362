#include "core/stall_labels.hpp"

#include <array>
#include <cctype>
#include <utility>

namespace gpufl {
namespace {

constexpr std::string_view kNotIssued = "_not_issued";

bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string wordLabel(std::string_view word) {
  // Words that are not title-cased: acronyms of units and pipes.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kSpecial = {{
      {"mio", "MIO"},
      {"lg", "LG"},
      {"tex", "TEX"},
      {"imc", "IMC"},
      {"gmma", "GMMA"},
      {"mma", "MMA"},
      {"lsu", "LSU"},
      {"xu", "XU"},
      {"fp", "FP"},
      {"alu", "ALU"},
      {"fma", "FMA"},
      {"l1", "L1"},
      {"tmem", "TMEM"},
      {"membar", "Memory Barrier"},
  }};
  for (const auto& [from, to] : kSpecial)
    if (word == from) return std::string(to);
  std::string out(word);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

}  // namespace

std::string stallLabel(std::string_view reason) {
  std::string_view r = reason;
  for (std::string_view prefix :
       {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_", "stalled_", "stall_"}) {
    if (startsWith(r, prefix)) {
      r.remove_prefix(prefix.size());
      break;
    }
  }
  const bool idle = endsWith(r, kNotIssued);
  if (idle) r.remove_suffix(kNotIssued.size());
  std::string label;
  size_t pos = 0;
  while (pos <= r.size()) {
    size_t end = r.find('_', pos);
    if (end == std::string_view::npos) end = r.size();
    if (end > pos) {
      if (!label.empty()) label += ' ';
      label += wordLabel(r.substr(pos, end - pos));
    }
    pos = end + 1;
  }
  if (label.empty()) label = reason.empty() ? "(unknown)" : std::string(reason);
  return idle ? label + " (idle)" : label;
}

}  // namespace gpufl
