// ReportBuilder: an EventVisitor that aggregates one session into a Report in bounded memory.
// Feed it events (the log reader does, in channel order device, scope, system; tests do by hand),
// then build(). Memory grows with distinct kernels, scope paths, functions and GPUs; per-kernel
// durations are kept exactly up to the limits in BuilderOptions and as histograms beyond (see
// DurationStats).
#pragma once

#include <cstdint>
#include <vector>

#include "core/event_visitor.hpp"
#include "report/aggregate/duration_stats.hpp"
#include "report/aggregate/incidents.hpp"
#include "report/aggregate/kernel_stats.hpp"
#include "report/aggregate/memory_stats.hpp"
#include "report/aggregate/profile_stats.hpp"
#include "report/aggregate/scope_stats.hpp"
#include "report/aggregate/sync_stats.hpp"
#include "report/aggregate/system_stats.hpp"
#include "report/aggregate/trace_health.hpp"
#include "report/aggregate/transfer_stats.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

struct BuilderOptions {
  size_t exact_samples_per_group =
      DurationStats::kExactLimit;  // per kernel group (and session-wide)
  size_t exact_samples_total = 8 * DurationStats::kExactLimit;  // all trackers together (64 MiB)
};

class ReportBuilder : public EventVisitor {
 public:
  explicit ReportBuilder(const BuilderOptions& options = {});

  void onSessionStart(const SessionStart& e) override;
  void onDevice(const DeviceEvent& e) override;
  void onSessionEnd(const SessionEnd& e) override;
  void onNote(const Note& e) override;
  void onKernelDef(const KernelDef& e) override;
  void onKernel(const KernelEvent& e) override;
  void onMemcpy(const MemcpyEvent& e) override;
  void onSync(const SyncEvent& e) override;
  void onMemory(const MemoryEvent& e) override;
  void onScopePath(const ScopePath& e) override;
  void onScopeBegin(const ScopeBegin& e) override;
  void onScopeEnd(const ScopeEnd& e) override;
  void onGpuSample(const GpuSample& e) override;
  void onHostSample(const HostSample& e) override;
  void onSassMetric(const SassMetric& e) override;
  void onPcSample(const PcSample& e) override;
  void onRangeCounters(const RangeCounters& e) override;
  void onBenchmark(const BenchmarkResult& e) override;
  void onStack(const StackDef& e) override { incidents_.onStack(e); }
  void onIncident(const Incident& e) override;
  void onHealth(const Health& e) override;

  // Warnings the reader counted (malformed lines, skipped records): shown in the collection notes.
  void setReaderWarnings(uint64_t count) { reader_warnings_ = count; }
  // What the reader found missing from the session's log: shown at the top of the report.
  void setLogIncomplete(std::vector<std::string> phrases) { log_incomplete_ = std::move(phrases); }
  // The aggregates so far, with hints. May be called more than once.
  Report build() &;
  // The same, for the last time: moves what it can instead of copying (std::move(builder).build()).
  Report build() &&;

 private:
  static constexpr size_t kMaxNotes = 256;
  void seen(int64_t ts_ns);
  Report make(bool last);

  SampleBudget budget_;  // declared first: the aggregators hold pointers to it
  KernelAggregator kernels_;
  TransferAggregator transfers_;
  SyncAggregator syncs_;
  MemoryAggregator memory_;
  SystemAggregator system_;
  ScopeAggregator scopes_;
  ProfileAggregator profile_;
  GpuSampleLog samples_;  // for the cards' clock windows
  IncidentCollector incidents_;
  TraceHealthAggregator trace_health_;
  SessionSummary session_;
  CollectionInfo collection_;
  std::vector<BenchmarkResult> benchmarks_;
  bool have_end_ = false;
  int64_t end_ns_ = 0;
  bool any_ts_ = false;
  int64_t first_ts_ = 0, last_ts_ = 0;
  uint64_t reader_warnings_ = 0;
  std::vector<std::string> log_incomplete_;
  uint64_t records_ = 0;
};

}  // namespace gpufl::report
