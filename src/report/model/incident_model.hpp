// The report's view of the session's incidents (incident records, docs/incidents.md): what went
// wrong and what the GPU was doing, with names resolved (kernels, stacks) and the memory live at
// the incident computed from the memory events before it. Plain data, filled by IncidentCollector
// (incidents.hpp) and read by the Incidents section's text and JSON renderers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpufl::report {

// A launch made and not finished when the incident was recorded (incident.in_flight).
struct IncidentLaunch {
  uint64_t corr = 0;
  std::string kind;     // "kernel", "graph", "copy"
  std::string name;     // readable short name (kernels), or the API called
  std::string mangled;  // as logged
  uint32_t stream = 0;  // CUPTI's stream id (0: not resolved)
  uint64_t stream_handle = 0;
  uint64_t context = 0;
  int64_t tid = 0;
  uint32_t scope_path = 0;
  std::vector<std::string> stack;  // innermost first, at most IncidentCollector::kStackFrames
  int64_t age_ns = -1;             // incident time - launch time (-1: launch time unknown)
  bool suspect = false;
};

// A host thread inside a call that waits for the GPU (incident.blocked).
struct IncidentBlocked {
  int64_t tid = 0;
  std::string api;
  int64_t waited_ns = -1;  // incident time - since_ns (-1: unknown)
  uint64_t stream_handle = 0;
  uint32_t scope_path = 0;
};

// A kernel that finished shortly before the incident (incident.last_kernels).
struct IncidentLastKernel {
  uint32_t stream = 0;
  std::string name;  // readable short name; "kernel_def #K" when the log has no such definition
  uint64_t corr = 0;
  int64_t before_ns = -1;  // incident time - end time (-1: unknown)
};

// Device memory allocated under one scope and not released at the incident.
struct IncidentHolder {
  uint32_t scope_path = 0;
  uint64_t allocs = 0, bytes = 0, largest = 0;
};

// Device memory live at the incident, from the memory_event records before it.
struct IncidentMemory {
  bool from_events = false;  // the session recorded memory events before the incident
  // Some events before the incident may be missing from the computation: the log placed the
  // incident after more memory events than the report keeps to look back over.
  bool approximate = false;
  uint64_t live_allocs = 0, live_bytes = 0;
  std::vector<IncidentHolder> holders;  // by bytes, at most IncidentCollector::kTopHolders
};

struct IncidentView {
  int64_t ts_ns = 0;
  int64_t at_ns = 0;  // since the session started
  std::string kind, reason, api, error_name, attribution;
  std::optional<int64_t> error_code;
  int64_t tid = 0;
  uint32_t scope_path = 0;
  std::optional<uint64_t> requested_bytes, free_bytes, total_bytes;
  uint64_t in_flight_count = 0;          // all launches in flight (the list holds some)
  std::vector<IncidentLaunch> launches;  // as listed, in launch order
  std::vector<IncidentBlocked> blocked;
  std::vector<IncidentLastKernel> last_kernels;  // by end time
  IncidentMemory memory;
  std::optional<uint64_t> gpu_mem_used_bytes, gpu_mem_total_bytes, gpu_power_mw;
  std::optional<int> gpu_util, gpu_temp_c, gpu_clk_sm;
  std::optional<int64_t> gpu_sample_age_ns;
};

struct IncidentSummary {
  std::vector<IncidentView> incidents;  // by time
  uint64_t dropped = 0;          // beyond IncidentCollector::kMaxIncidents in the log (not shown)
  uint64_t left_out = 0;         // session_end dropped.incidents: repeats, or past the 32 recorded
  uint64_t untimed_kernels = 0;  // session_end dropped.untimed_kernels
};

struct Report;

// The session's first incident of kind `kind`, or nullptr.
const IncidentView* firstIncident(const Report& r, std::string_view kind);
// For the kernel summary and the hints: after a fatal CUDA error, why kernels are missing (CUPTI
// delivered the faulted context's kernels without times); "" otherwise.
std::string faultedKernelsNote(const Report& r);

}  // namespace gpufl::report
