// Loads one session of a log prefix into column buffers, one table per record kind, for the Python
// analyzer.
//
// SessionColumns is an EventVisitor fed by log::readPrefix. It runs without the GIL and knows
// nothing of Python: every table is a set of std::vector columns of primitives; strings that repeat
// (kernel names, stall reasons, copy kinds) are interned into int32 codes plus the distinct values,
// which Python turns into pandas Categoricals without creating one str per row. session_columns.cpp
// hands the vectors to numpy without copying.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/event_visitor.hpp"
#include "log/reader.hpp"
#include "narrow_column.hpp"
#include "pod_column.hpp"
#include "record_columns.hpp"
#include "string_column.hpp"

namespace gpufl::py {

template <typename T>
inline double optToDouble(const std::optional<T>& v) {
  return v ? static_cast<double>(*v) : kNaN;
}

// Millions of rows: PodColumn grows without copying (pod_column.hpp), ids in the narrowest width
// that holds them (narrow_column.hpp). The duration rather than the end: the analyzer's table holds
// start and duration, and computes the end when asked.
struct KernelTable {
  NarrowColumn k, stream, scope, stack, graph, corr;
  PodColumn<int64_t> start_ns, dur_ns;
  PodColumn<uint8_t> instr;
};

struct MemcpyTable {
  std::vector<uint8_t> is_memset;
  StringColumn kind, src_kind, dst_kind;
  std::vector<uint64_t> bytes, corr;
  std::vector<uint32_t> device, stream, scope;
  std::vector<int64_t> start_ns, end_ns;
  std::vector<double> value;
};

struct SyncTable {
  StringColumn kind;
  std::vector<uint32_t> stream, scope;
  std::vector<uint64_t> corr;
  std::vector<int64_t> start_ns, end_ns;
};

struct MemoryTable {
  std::vector<uint8_t> is_free;
  StringColumn memory_kind;
  std::vector<uint64_t> bytes, address, corr;
  std::vector<uint32_t> device, stream, scope;
  std::vector<int64_t> ts_ns;
};

struct ScopePathTable {
  std::vector<uint32_t> p, parent;
  std::vector<int64_t> depth;
  StringColumn name;
};

// Begin and end joined by instance id; an instance with no end (the program died) has end_ns =
// INT64_MIN.
struct ScopeTable {
  std::vector<uint64_t> id;
  std::vector<uint32_t> p;
  std::vector<int64_t> tid, depth, start_ns, end_ns;
  StringColumn name, tag;
  std::unordered_map<uint64_t, size_t> row_of_id;
  uint64_t unmatched_ends = 0;
};

// Long format: one row per (range, metric).
struct RangeCounterTable {
  StringColumn range, kernel, metric;  // kernel: "" unless ranges are per kernel launch
  std::vector<uint32_t> p;
  std::vector<uint32_t>
      instance;  // which range_counters record (0, 1, ...): one row per metric of it
  std::vector<double> value;
};

struct StackTable {
  std::vector<uint32_t> id;
  std::vector<std::string> frames;  // innermost first, joined with '\n'
};

// Benchmarks are few: every row of the record's field table (core/record_schema.hpp) is a column
// under its JSON key, numbers and flags as double (NaN: an unset optional), strings as string
// columns, string lists joined with
// '\n'.
struct BenchmarkTable {
  std::map<std::string, std::vector<double>, std::less<>> numbers;
  std::map<std::string, StringColumn, std::less<>> strings;
};

// The rows of one list inside incident records (in_flight, blocked, last_kernels), each with the
// row of its incident in SessionColumns::incidents.
template <typename T>
struct IncidentListTable {
  std::vector<uint32_t> incident;
  RecordColumns<T> rows;
  void push(uint32_t row, const std::vector<T>& list) {
    for (const T& x : list) {
      incident.push_back(row);
      rows.push(x);
    }
  }
};

class SessionColumns : public EventVisitor {
 public:
  void onSessionStart(const SessionStart& e) override;
  void onDevice(const DeviceEvent& e) override;
  void onSessionEnd(const SessionEnd& e) override;
  void onNote(const Note& e) override;
  void onKernelDef(const KernelDef& e) override;
  void onKernel(const KernelEvent& e) override;
  void onMemcpy(const MemcpyEvent& e) override;
  void onSync(const SyncEvent& e) override;
  void onMemory(const MemoryEvent& e) override;
  void onStack(const StackDef& e) override;
  void onScopePath(const ScopePath& e) override;
  void onScopeBegin(const ScopeBegin& e) override;
  void onScopeEnd(const ScopeEnd& e) override;
  void onGpuSample(const GpuSample& e) override;
  void onHostSample(const HostSample& e) override;
  void onSassMetric(const SassMetric& e) override;
  void onPcSample(const PcSample& e) override;
  void onRangeCounters(const RangeCounters& e) override;
  void onBenchmark(const BenchmarkResult& e) override;
  void onIncident(const Incident& e) override;
  void onHealth(const Health& e) override;

  // Session-level facts, merged over the channels (each channel repeats session_start/session_end).
  bool have_start = false, have_end = false;
  SessionStart start;
  SessionEnd end;
  int64_t last_ts_ns = std::numeric_limits<int64_t>::min();  // latest timestamp seen in any record
  uint64_t range_records_ = 0;  // range_counters records so far (RangeCounterTable::instance)

  // Generated from the field tables (record_columns.hpp); kernel_short_names: a column beside
  // kernel_defs'.
  RecordColumns<KernelDef> kernel_defs;
  StringColumn kernel_short_names;
  KernelTable kernels;
  MemcpyTable memcpy;
  SyncTable syncs;
  MemoryTable memory;
  ScopePathTable scope_paths;
  ScopeTable scopes;
  RecordColumns<GpuSample> gpu_samples;
  RecordColumns<HostSample> host_samples;
  RecordColumns<SassMetric> sass;
  RecordColumns<PcSample> pc_samples;
  RangeCounterTable range_counters;
  RecordColumns<Note> notes;
  StackTable stacks;
  BenchmarkTable benchmarks;
  // One row per incident (its scalar fields), and its lists as tables of their own.
  RecordColumns<Incident> incidents;
  IncidentListTable<InFlightLaunch> incident_launches;
  IncidentListTable<BlockedThread> incident_blocked;
  IncidentListTable<LastKernel> incident_last_kernels;
  uint32_t incident_rows = 0;
  // gpufl's own health records (its maps as JSON text), and their examples with the row of their
  // record.
  RecordColumns<Health> health;
  IncidentListTable<HealthExample> health_examples;
  uint32_t health_rows = 0;

 private:
  void seen(int64_t ts) {
    if (ts > last_ts_ns) last_ts_ns = ts;
  }
};

struct LoadResult {
  log::ReadResult read;
  SessionColumns columns;
};

// Reads one session of `prefix` (latest when `session` is empty) into `out`. Does not touch Python.
void loadSession(const std::string& prefix, const std::string& session, size_t max_warnings,
                 LoadResult& out);

}  // namespace gpufl::py
