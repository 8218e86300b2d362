// The report's Incidents section as one unit, in the shape of a report section with its own
// collector: IncidentCollector sees the session's records (incidents, and the kernel definitions,
// stacks and memory events around them) and, once the shared model is built, stores an
// IncidentSummary (incident_model.hpp) in the Report; the renderers below show it first in the text
// report (when incidentsInText) and as "incidents" in the JSON report. docs/incidents.md says what
// each incident kind means.
//
// Memory: the incidents (at most kMaxIncidents), 8 bytes per kernel definition (a hash of its
// name, matched to the model's kernel groups at the end), the device allocations outstanding, the
// last kLookBack memory events (to undo those the log placed before an incident but timed after
// it), and up to kMaxStacks call stacks. Nothing grows with the number of kernel launches.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/event_visitor.hpp"
#include "report/model/incident_model.hpp"

namespace gpufl::report {

struct Report;

class IncidentCollector : public EventVisitor {
 public:
  static constexpr size_t kMaxIncidents = 64;  // the runtime writes at most 32 per session
  static constexpr size_t kStackFrames = 6;    // kept per stack, innermost first
  static constexpr size_t kMaxStacks = 4096;   // stacks kept before an incident needs them
  static constexpr size_t kTopHolders = 5;     // scopes listed as holding memory
  static constexpr size_t kLookBack = 4096;    // memory events kept to undo

  void onKernelDef(const KernelDef& e) override;
  void onStack(const StackDef& e) override;
  void onMemory(const MemoryEvent& e) override;
  void onIncident(const Incident& e) override;

  // Stores the IncidentSummary in `r.incidents`: incidents by time, from the session's start, the
  // last kernels named by the model's kernel groups (a last kernel finished with times, so its
  // group is there; else "kernel_def #K"), r.collection's untimed kernels. Called after the rest
  // of the model is built.
  void finish(Report& r) const;

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

  // kernel_def id -> hash of its mangled name: ids below kDenseIds index def_hash_ (the writer
  // numbers definitions 1, 2, 3, ...), others go to the map.
  static constexpr uint32_t kDenseIds = uint32_t{1} << 20;
  uint64_t defHash(uint32_t id) const;
  std::vector<uint64_t> def_hash_;
  std::map<uint32_t, uint64_t> sparse_def_hash_;

  std::vector<Incident> incidents_;
  uint64_t dropped_ = 0;
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

}  // namespace gpufl::report
