// The aggregates of one session, as ReportBuilder produces them (aggregate/) and the sections
// render them (sections/). Plain data: everything a section shows is computed before it renders, so
// text and JSON always agree. Every key of the JSON report is in the field tables of
// report_fields.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "report/model/incident_model.hpp"
#include "report/model/section_data.hpp"
#include "report/model/trace_health_model.hpp"

namespace gpufl::report {

// Durations of a set of launches or instances (aggregate/duration_stats.hpp computes them).
struct DurationSummary {
  uint64_t count = 0;
  int64_t total_ns = 0;
  double avg_ns = 0, median_ns = 0, p90_ns = 0, p99_ns = 0;
  int64_t min_ns = 0, max_ns = 0;
  bool approximate = false;  // percentiles estimated from the histogram
};

struct SessionSummary {
  bool started = false;  // a session_start was read
  bool ended = false;    // a session_end was read
  std::string sid, session_id, app, host, version;
  Engine engine = Engine::None;
  int64_t pid = 0;
  int64_t start_ns = 0, start_unix_ns = 0;
  int64_t end_ns = 0;       // session_end's, else the last record's time
  int64_t duration_ns = 0;  // end_ns - start_ns
  std::vector<DeviceInfo> devices;
  // What the reader found missing from this session's log (records fewer than session_end counts,
  // missing segments), one phrase each; empty when nothing is known to be missing.
  std::vector<std::string> log_incomplete;
};

// avg / min / max of a sampled quantity.
struct Stat {
  uint64_t n = 0;
  double sum = 0, min = 0, max = 0;
  void add(double v) {
    if (n == 0 || v < min) min = v;
    if (n == 0 || v > max) max = v;
    sum += v;
    ++n;
  }
  double avg() const { return n ? sum / static_cast<double>(n) : 0; }
};

// GPU samples taken while one kernel group ran (see GpuSampleLog::window).
struct ClockWindow {
  uint64_t samples = 0;        // samples used
  bool nearest = false;        // none fell inside the kernels' intervals: the nearest one is used
  int64_t nearest_gap_ns = 0;  // its distance to the closest interval
  int64_t resolution_ns = 0;   // intervals closer than this were merged (0 = exact)
  Stat clk_sm, power_w;
  uint64_t throttle_samples = 0;      // samples that reported throttle state
  std::vector<std::string> throttle;  // reasons seen, sorted
};

// Kernels with one name launched at one shape: a kernel has a speed only at a size.
struct KernelGroup {
  std::string name;     // demangled
  std::string mangled;  // as CUPTI reports it
  Dim3 grid, block;     // meaningless when !defined
  bool defined = true;  // false: its events named a kernel_def never seen (launch shape unknown)
  KernelDef def;        // first definition seen (resources, occupancy); others differ only in
                        // device/context/smem. Its name and demangled are empty: see name, mangled
  uint32_t defs = 0;    // definitions folded into this group
  uint64_t instrumented = 0;  // launches with inflated durations
  DurationSummary durations;
  DurationSummary clean;  // uninstrumented launches only (percentiles from a histogram)
  ClockWindow clocks;     // filled for the first kCardGroups groups only
};

struct KernelSummary {
  uint64_t launches = 0;
  uint64_t unique_functions = 0;  // distinct names
  uint64_t instrumented = 0;
  int64_t total_ns = 0;  // sum of durations
  int64_t busy_ns = 0;   // length of the union of kernel intervals (all devices)
  double busy_pct = 0;   // busy_ns / session duration, at most 100; 0 when the duration is unknown
  bool busy_clipped = false;  // an interval arrived too far out of order (see IntervalUnion)
  DurationSummary all;
  DurationSummary clean;            // launches without instrumentation
  uint64_t undefined_refs = 0;      // kernel events naming a kernel_def never seen
  std::vector<KernelGroup> groups;  // by total GPU time, descending
};

struct TransferStats {
  std::string kind;  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "unknown" or "Memset"
  uint64_t count = 0, bytes = 0;
  int64_t total_ns = 0;
  uint64_t pageable = 0;      // copies with a pageable host buffer
  double throughput_bps = 0;  // bytes / sum of durations (0 when no duration)
};

struct TransferSummary {
  uint64_t copies = 0, copy_bytes = 0;    // memcpys only
  std::vector<TransferStats> directions;  // memcpys with count > 0, in CopyKind order
  TransferStats memsets;
  uint64_t pageable_copies = 0, pageable_bytes = 0;
};

struct SyncStats {
  std::string kind;  // syncKindName: "stream_synchronize", ...
  uint64_t count = 0;
  int64_t total_ns = 0, max_ns = 0;
};

struct SyncScopeStats {
  uint32_t path = 0;  // scope path id; 0 = outside any scope (or not attributed)
  uint64_t count = 0;
  int64_t total_ns = 0;
};

// Host waits on the GPU (sync_event records).
struct SyncSummary {
  bool enabled = false;  // the session asked for them (enable_sync_events)
  uint64_t count = 0;
  int64_t total_ns = 0;
  std::vector<SyncStats> kinds;  // kinds seen, by total time
  std::vector<SyncScopeStats>
      scopes;  // the scopes that waited longest (SyncAggregator::kTopScopes)
};

struct MemoryKindStats {
  std::string kind;  // "device", "pinned", "managed", "pageable", "unknown"
  uint64_t allocs = 0, frees = 0, bytes = 0, largest = 0;  // bytes: allocated in all
};

struct MemoryScopeStats {
  uint32_t path = 0;  // 0 = outside any scope (or not attributed)
  uint64_t allocs = 0, bytes = 0;
};

// Memory allocations and releases (memory_event records).
struct MemorySummary {
  bool enabled = false;  // the session asked for them (enable_memory_events)
  uint64_t allocs = 0, frees = 0, bytes = 0;
  uint64_t peak_in_use = 0;  // allocated and not yet released, at its highest
  int64_t peak_ts_ns = 0;
  uint64_t in_use_at_end = 0;            // never released while recorded
  std::vector<MemoryKindStats> kinds;    // by bytes
  std::vector<MemoryScopeStats> scopes;  // most allocations first (MemoryAggregator::kTopScopes)
};

struct ThrottleShare {
  std::string reason;
  uint64_t samples = 0;
  double pct = 0;  // of the samples that reported throttle state
};

struct GpuSystemStats {
  uint32_t gpu = 0;
  uint64_t samples = 0;
  Stat util_gpu, util_mem, temp_c, power_w, clk_sm, clk_mem, pcie_rx_kbps, pcie_tx_kbps;
  std::optional<double> power_limit_w;
  std::optional<uint64_t> vram_peak_bytes;  // unset: no sample reported memory use
  uint64_t vram_total_bytes = 0;
  std::optional<double> energy_j;
  std::string energy_source;      // "counter" (energy_mj delta) or "power" (integrated power_mw)
  uint64_t throttle_samples = 0;  // samples that reported throttle state
  std::vector<ThrottleShare> throttle;  // by samples, descending
};

struct HostSystemStats {
  uint64_t samples = 0;
  Stat cpu_pct, proc_cpu_pct;
  std::optional<uint64_t> ram_peak_bytes;  // unset: no sample reported RAM use
  uint64_t ram_total_bytes = 0;            // as reported with the peak
  uint64_t rss_peak_bytes = 0;
};

struct ScopeRow {
  uint32_t path = 0, parent = 0;
  std::string name;
  int depth = 0;            // position in the tree, 0 = top level
  uint64_t calls = 0;       // matched begin/end pairs
  uint64_t unfinished = 0;  // begins never ended
  int64_t total_ns = 0, max_ns = 0;
  uint64_t kernels_self = 0, kernels_incl = 0;  // inclusive: this scope and all below it
  int64_t gpu_self_ns = 0, gpu_incl_ns = 0;
  uint64_t copies_self = 0, copies_incl = 0;  // copies (not memsets) issued under the scope
  uint64_t copy_bytes_self = 0, copy_bytes_incl = 0;
};

struct ScopeSummary {
  std::vector<ScopeRow> rows;  // tree order: parents first, siblings by path id
  uint64_t unfinished = 0;
  uint64_t unmatched_ends = 0;  // scope_end without its begin
  uint64_t kernels_outside = 0;
  int64_t gpu_outside_ns = 0;
};

// The summary's row of scope path `path` (nullptr for 0 or an unknown path).
const ScopeRow* findScopeRow(const ScopeSummary& scopes, uint32_t path);
// "outer/inner" for `path`; "(no scope)" for 0, "scope #N" when the summary does not know it.
std::string scopePathName(const ScopeSummary& scopes, uint32_t path);

struct SassTotals {
  uint64_t inst_executed = 0, thread_inst_executed = 0, sectors_global = 0,
           sectors_global_ideal = 0;
  double threadsPerWarp() const {
    return inst_executed
               ? static_cast<double>(thread_inst_executed) / static_cast<double>(inst_executed)
               : 0;
  }
  double warpEfficiencyPct(int warp_size = 32) const {
    return 100.0 * threadsPerWarp() / warp_size;
  }
  // ideal / actual global sectors; 100 when no global memory was touched.
  double memoryEfficiencyPct() const {
    return sectors_global ? 100.0 * static_cast<double>(sectors_global_ideal) /
                                static_cast<double>(sectors_global)
                          : 100.0;
  }
};

struct StallCount {
  std::string reason;  // as logged
  std::string label;   // readable: "Long Scoreboard (idle)"
  uint64_t samples = 0;
};

struct HotInstruction {
  uint64_t pc = 0;
  std::string sass, source;
  uint64_t samples = 0;
  std::string top_stall;  // readable label of the most sampled reason at this pc
  uint64_t inst_executed = 0, thread_inst_executed = 0;
};

struct Hint {
  std::string kind;     // "memory_efficiency", "divergence", "occupancy", "launch_bound", ...
  std::string subject;  // kernel or scope it is about; empty for the session
  std::string text;
  // Per-kernel hints: the text without the kernel's name. Hints with equal kind and key say the
  // same of different kernels (a library's template instances) and are said once. Not in the JSON.
  std::string key = {};
};

struct FunctionProfile {
  std::string func;  // mangled, as logged
  std::string name;  // readable
  bool has_sass = false;
  SassTotals sass;
  uint64_t launches = 0;  // instrumented launches (largest count seen on its pcs)
  uint64_t stall_samples = 0;
  uint64_t patched_samples = 0;     // of stall_samples: sampled on SASS-patched code (biased)
  std::vector<StallCount> stalls;   // by samples, descending
  bool hot_by_samples = false;      // hot list ranked by PC samples (else by warp instructions)
  std::vector<HotInstruction> hot;  // at most 5
  std::vector<Hint> hints;
};

struct RangeCounterRow {
  std::string range;
  std::string kernel;  // per-kernel ranges: the kernel (one row per scope and kernel); else empty
  // ".sum" metrics: totals over the range's instances; others: time-weighted means
  // (range_stats.hpp).
  std::map<std::string, double> metrics;
  uint64_t instances = 0;  // range_counters records of this range
  uint32_t path = 0;       // scope path id (0: not a scope), to join the scope's traced kernels
};

struct ProfileSummary {
  bool has_sass = false, has_pc = false;
  int warp_size = 32;
  SassTotals sass;
  uint64_t stall_samples = 0;
  std::vector<FunctionProfile> functions;  // by stall samples, then warp instructions, descending
  std::vector<RangeCounterRow> ranges;     // in first-seen order
};

struct CardAdvice {
  std::string kind;  // "memory_efficiency", "occupancy", "divergence", "small_grid", ...
  std::string text;
};

// The SASS metrics of a card's function (all its launch shapes together: `function_groups` says how
// many).
struct CardSass {
  uint64_t launches = 0;  // instrumented launches
  uint32_t function_groups = 0;
  SassTotals totals;
  double memory_efficiency_pct = 0, warp_efficiency_pct = 0, threads_per_warp = 0;
};

// A stall reason of a card's function, with its share of the function's PC samples.
struct CardStall : StallCount {
  double pct = 0;
};

// DRAM-side bandwidth estimate: sectors x 32 B per instrumented launch / a median duration.
struct CardBandwidth {
  double bytes_per_launch = 0;
  double duration_ns = 0;
  bool clean_duration = false;  // the median of uninstrumented launches (else instrumented ones)
  uint64_t duration_launches = 0;
  double achieved_bps = 0;
  double peak_bps = 0;  // 2 x memory clock x bus width / 8; 0 when the device does not say
  double peak_pct = 0;
};

// "Why Is This Kernel Slow": what the other sections know about one kernel group, joined.
struct KernelCard {
  size_t group = 0;              // index into KernelSummary::groups
  double share_pct = 0;          // of all kernel time
  std::optional<CardSass> sass;  // unset: no SASS metrics for the function
  // PC samples of the function: the top 3 stall reasons.
  uint64_t stall_samples = 0;
  uint64_t patched_samples = 0;  // of stall_samples: sampled on SASS-patched code (biased)
  std::vector<CardStall> stalls;
  std::optional<CardBandwidth> bandwidth;  // unset: no global sectors or no duration
  bool session_has_samples = false;        // any GPU sample at all in the session
  std::vector<CardAdvice> advice;          // one or two, most likely to help first
};

struct CollectionInfo {
  std::vector<Note> notes;
  std::map<std::string, uint64_t> dropped;
  std::map<std::string, uint64_t> overhead_ns;
  uint64_t cpu_time_ns = 0, buffers = 0, bytes_written = 0;
  uint64_t reader_warnings = 0;
  uint64_t records = 0;  // records aggregated
};

struct Report {
  SessionSummary session;
  KernelSummary kernels;
  TransferSummary transfers;
  SyncSummary syncs;
  MemorySummary memory;
  std::vector<GpuSystemStats> gpus;  // by GPU index
  HostSystemStats host;
  ScopeSummary scopes;
  ProfileSummary profile;
  std::vector<BenchmarkResult> benchmarks;
  std::vector<Hint> hints;        // session-wide, most important first
  std::vector<KernelCard> cards;  // top kernel groups by GPU time
  CollectionInfo collection;
  IncidentSummary incidents;  // shown first when there are any
  TraceHealth trace_health;   // whether the records above can be trusted
  SectionData section_data;   // what sections collected for themselves (Section::collector)
};

}  // namespace gpufl::report
