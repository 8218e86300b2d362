// The report's Incidents section as one unit: IncidentCollector turns the session's incident
// records (with the kernel names, stacks and memory events around them) into an IncidentSummary
// (incident_model.hpp); the renderers below show it first in the text report and as "incidents" in
// the JSON report. docs/incidents.md says what each incident kind means.
//
// Memory: the incidents (at most kMaxIncidents), the device allocations outstanding, the last
// kLookBack memory events (to undo those the log placed before an incident but timed after it),
// and up to kMaxStacks call stacks. Nothing grows with the number of kernels.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/event_visitor.hpp"
#include "report/incident_model.hpp"
#include "report/json_writer.hpp"

namespace gpufl::report {

struct Report;
struct FunctionProfile;
namespace text {
class TextOut;
}

class IncidentCollector : public EventVisitor {
 public:
  static constexpr size_t kMaxIncidents = 64;  // the runtime writes at most 32 per session
  static constexpr size_t kStackFrames = 6;    // kept per stack, innermost first
  static constexpr size_t kMaxStacks = 4096;   // stacks kept before an incident needs them
  static constexpr size_t kTopHolders = 5;     // scopes listed as holding memory
  static constexpr size_t kLookBack = 4096;    // memory events kept to undo

  void onSessionEnd(const SessionEnd& e) override;
  void onStack(const StackDef& e) override;
  void onMemory(const MemoryEvent& e) override;
  void onIncident(const Incident& e) override;

  // The readable name of kernel_def `id`, "" when the log has no such definition.
  using DefName = std::function<std::string(uint32_t id)>;
  // Fills `out`: incidents by time, `at_ns` from `start_ns` (the session's start).
  void finish(IncidentSummary& out, int64_t start_ns, const DefName& def_name) const;

 private:
  using Key = std::pair<uint32_t, uint64_t>;  // (device, address)
  struct Live {
    uint64_t bytes = 0;
    uint32_t scope_path = 0;
  };
  // One applied memory event and what it changed, to be undone for an incident timed before it.
  struct Applied {
    int64_t ts_ns = 0;
    Key key;
    std::optional<Live> before;  // the entry at `key` before the event (none: absent)
  };

  // Device memory live at `ts_ns`: the allocations outstanding now, with the kept events timed
  // after `ts_ns` undone.
  IncidentMemory snapshot(int64_t ts_ns) const;
  void remember(int64_t ts_ns, const Key& key, std::optional<Live> before);

  std::vector<Incident> incidents_;
  uint64_t dropped_ = 0;
  uint64_t untimed_kernels_ = 0;
  // The memory of each incident, once taken; nullopt while later memory events may still belong
  // before it.
  std::vector<std::optional<IncidentMemory>> memory_;
  std::map<uint32_t, std::vector<std::string>> stacks_;
  std::set<uint32_t> wanted_stacks_;  // named by an incident, kept past kMaxStacks
  bool any_memory_ = false;           // a device memory event was seen
  int64_t last_memory_ts_ = INT64_MIN;
  std::map<Key, Live> live_;
  std::deque<Applied> applied_;
  int64_t forgotten_ts_ = INT64_MIN;  // the latest time of an event dropped from applied_
};

// The text section ("Incidents"), first in the report; nothing when the session has none. Before
// it, for a session without session_end, one line saying so.
void renderIncidentsText(text::TextOut& out, const Report& r);
// "incidents": one object per incident (an empty array when none).
void renderIncidentsJson(JsonWriter& w, const Report& r);

// What to try after `incident`, most useful first (shown in the text and the JSON).
std::vector<std::string> incidentAdvice(const IncidentView& incident, const Report& r);
// The PC-sampling profiles of the suspects of a hang (those with samples), for where they spin.
std::vector<const FunctionProfile*> hangProfiles(const IncidentView& incident, const Report& r);
// The session's first incident of kind `kind`, or nullptr.
const IncidentView* firstIncident(const Report& r, std::string_view kind);
// For the kernel summary: after a fatal CUDA error, why kernels are missing (CUPTI delivered the
// faulted context's kernels without times); "" otherwise.
std::string faultedKernelsNote(const Report& r);

}  // namespace gpufl::report
