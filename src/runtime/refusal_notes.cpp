#include "runtime/refusal_notes.hpp"

#include "doctor/engine_refusal.hpp"

namespace gpufl::runtime {

std::optional<std::string_view> refusedEngine(std::string_view feature, std::string_view status) {
  if (status != "off") return std::nullopt;
  if (feature == "cupti_activity") return "tracing";
  if (feature == "pc_sampling") return "PcSampling";
  if (feature == "sass_metrics") return "SassMetrics";
  if (feature == "range_profiler") return "RangeProfiler";
  return std::nullopt;
}

std::string reasonWithAdvice(std::string_view engine, std::string_view reason) {
  // A failure the doctor does not know stays in its own words: "gpufl doctor checks this machine"
  // would add nothing to every such note.
  if (doctor::classifyFailure(reason) == doctor::FailureKind::Other) return std::string(reason);
  std::string line = doctor::engineRefusalReason(engine, reason);
  const std::string head = std::string(engine) + " refused: ";
  if (line.compare(0, head.size(), head) == 0) line.erase(0, head.size());
  return line;
}

}  // namespace gpufl::runtime
