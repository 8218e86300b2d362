// Turns the events of one session into TimelineSink calls: one process per session, one track per
// host thread (scopes and NVTX ranges, nested), two per GPU stream (kernels; copies and memsets,
// which CUPTI delivers in batches of their own; a further lane when slices on a stream overlap),
// counter tracks for NVML and host samples, a flow from each launching scope to its kernels, and
// the kernel's definition, occupancy and deep data as slice arguments.
//
// Memory is bounded by the log's distinct things (kernel definitions, streams, threads), not by its
// events, except the ScopeIndex it is given. Slices on one GPU stream are put in start order
// through a window of kReorderWindow slices (CUPTI delivers some kernels after their successor); a
// slice later than that is written out of order and counted.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/event_visitor.hpp"
#include "export/deep_summary.hpp"
#include "export/scope_index.hpp"
#include "export/timeline_sink.hpp"

namespace gpufl::exporter {

struct SessionPlacement {
  uint32_t rank = 0;         // position among the exported sessions: keeps uuids and flow ids apart
  int64_t offset_ns = 0;     // added to every timestamp (clock alignment of several sessions)
  std::string label_suffix;  // after the app's name in the process name (" [rank 1]")
  // Pids already shown: a session whose pid is taken (another host, or a reused pid) is shown with
  // pid + 1,000,000 (repeatedly), since a trace's processes are told apart by pid.
  std::set<int64_t>* used_pids = nullptr;
  // Kernel slices carry their definition as one interned text ("launch") instead of one argument
  // per field: a few bytes per kernel instead of ~80, for sessions of many millions of kernels.
  bool compact_kernel_args = false;
};

// Track and flow ids: rank in the top byte so sessions never collide.
uint64_t flowIdOfScope(uint32_t rank, uint64_t scope_instance);

class TimelineBuilder : public EventVisitor {
 public:
  static constexpr size_t kReorderWindow = 1024;

  TimelineBuilder(TimelineSink& sink, SessionPlacement placement, const ScopeIndex* scopes,
                  const DeepSummary* deep);
  ~TimelineBuilder() override;

  void onSessionStart(const SessionStart& s) override;
  void onKernelDef(const KernelDef& d) override;
  void onKernel(const KernelEvent& k) override;
  void onMemcpy(const MemcpyEvent& m) override;
  void onScopeBegin(const ScopeBegin& b) override;
  void onScopeEnd(const ScopeEnd& e) override;
  void onGpuSample(const GpuSample& s) override;
  void onHostSample(const HostSample& s) override;
  // An instant "<kind>: <reason>" on the process's "incidents" track (docs/incidents.md).
  void onIncident(const Incident& i) override;

  // Writes the slices still held for reordering. Call once after the last event.
  void finish();
  uint64_t outOfOrderSlices() const { return out_of_order_; }
  uint64_t kernelsWithoutDefinition() const { return undefined_kernels_; }
  int64_t shownPid() const { return pid_; }

 private:
  struct Definition;
  struct StreamTrack;
  using Pending = std::variant<KernelEvent, MemcpyEvent>;

  void ensureProcess();
  uint64_t newTrackUuid();
  uint64_t threadTrack(int64_t tid);
  StreamTrack& streamTrack(uint32_t device, uint32_t stream, bool copies);
  void hold(StreamTrack& t, Pending p, int64_t begin_ns);
  void release(StreamTrack& t);
  uint64_t laneFor(StreamTrack& t, int64_t begin_ns, int64_t end_ns);
  void writeKernel(uint64_t track, const KernelEvent& k);
  void writeCopy(uint64_t track, const MemcpyEvent& m);
  uint64_t counterTrack(const std::string& name, const std::string& unit);
  void sample(const std::string& name, const std::string& unit, int64_t ts_ns, double value);

  TimelineSink& sink_;
  SessionPlacement placement_;
  const ScopeIndex* scopes_;
  const DeepSummary* deep_;
  bool have_process_ = false;
  uint64_t process_uuid_ = 0;
  SessionStart start_;
  bool have_start_ = false;
  int64_t pid_ = 0;
  std::vector<SliceArg> scratch_;  // a slice's arguments, reused
  std::unordered_map<uint32_t, std::unique_ptr<Definition>> defs_;
  std::unordered_map<int64_t, uint64_t> threads_;
  std::unordered_map<uint64_t, std::unique_ptr<StreamTrack>> streams_;
  std::unordered_map<std::string, uint64_t> counters_;
  uint64_t incident_track_ = 0;  // created with the first incident
  uint64_t next_track_ = 1;
  uint64_t out_of_order_ = 0, undefined_kernels_ = 0;
};

}  // namespace gpufl::exporter
