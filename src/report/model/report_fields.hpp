// The field tables of the report model: every key of the JSON report, described once, beside the
// type it comes from (report_model.hpp). The JSON writer is generated from them
// (json/model_json.hpp says how to read a row: F member, N nested member, K computed or renamed,
// L the log record's own table); the order of the rows is the order of the keys.
//
// Keys follow the log format's where the value is the same; the JSON is `report_schema` 1: a key
// renamed or moved here changes what scripts read (python/gpufl/analyzer.py among them).
#pragma once

#include <cstdint>
#include <optional>

#include "report/model/report_model.hpp"

namespace gpufl::report {

// Helpers of the computed rows.
// `value` when `known`, else unset (written as null).
template <typename T>
std::optional<T> knownOr(bool known, const T& value) {
  return known ? std::optional<T>(value) : std::nullopt;
}
// The average of a sampled quantity; unset without samples.
inline std::optional<double> average(const Stat& s) {
  return knownOr(s.n > 0, s.avg());
}
// The kernel group a card is about.
inline const KernelGroup& cardGroup(const KernelCard& c, const Report& r) {
  return r.kernels.groups[c.group];
}
inline std::optional<double> groupOccupancy(const KernelGroup& g) {
  return knownOr(g.def.occupancy.has_value(), g.def.occupancy ? g.def.occupancy->occupancy : 0.0);
}
inline const char* groupLimiter(const KernelGroup& g) {
  return g.def.occupancy ? limitingResourceName(g.def.occupancy->limiting) : "none";
}

// Summaries of nothing are null in the JSON.
inline bool jsonNull(const DurationSummary& d) {
  return d.count == 0;
}
inline bool jsonNull(const Stat& s) {
  return s.n == 0;
}

// clang-format off
#define GFL_REPORT_JSON_SessionSummary(F, K, N, L)                                                \
  F(sid, kPlain) F(session_id, kPlain) F(app, kPlain) F(host, kPlain) F(pid, kPlain)              \
  F(version, kPlain) F(engine, kPlain) F(started, kPlain) F(ended, kPlain) F(start_ns, kPlain)    \
  F(start_unix_ns, kPlain) F(end_ns, kPlain) F(duration_ns, kPlain)                               \
  F(log_incomplete, kOmitEmpty)                                                                   \
  F(devices, kPlain)

// The device fields the report keeps (the log's device record has more).
#define GFL_REPORT_JSON_DeviceInfo(F, K, N, L)                                                    \
  F(id, kPlain) F(name, kPlain) F(uuid, kPlain) F(cc_major, kPlain) F(cc_minor, kPlain)           \
  F(sm_count, kPlain) F(warp_size, kPlain) F(max_threads_per_sm, kPlain)                          \
  F(regs_per_block, kPlain) F(smem_per_block_bytes, kPlain) F(l2_bytes, kPlain)                   \
  F(global_mem_bytes, kPlain)

#define GFL_REPORT_JSON_DurationSummary(F, K, N, L)                                               \
  F(count, kPlain) F(total_ns, kPlain) F(avg_ns, kDec1) F(median_ns, kDec1) F(p90_ns, kDec1)      \
  F(p99_ns, kDec1) F(min_ns, kPlain) F(max_ns, kPlain) F(approximate, kPlain)

#define GFL_REPORT_JSON_KernelSummary(F, K, N, L)                                                 \
  F(launches, kPlain) F(unique_functions, kPlain)                                                 \
  K("groups", static_cast<uint64_t>(v.groups.size()), kPlain)                                     \
  F(instrumented, kPlain) F(total_ns, kPlain) F(busy_ns, kPlain) F(busy_pct, kDec2)               \
  K("busy_approximate", v.busy_clipped, kPlain)                                                   \
  K("durations", v.all, kPlain) K("clean_durations", v.clean, kPlain)                             \
  F(undefined_refs, kPlain)

// grid and block are null when the launch shape is unknown (no kernel_def), never (1,1,1).
#define GFL_REPORT_JSON_KernelGroup(F, K, N, L)                                                   \
  F(name, kPlain) F(mangled, kPlain)                                                              \
  K("grid", knownOr(v.defined, v.grid), kPlain) K("block", knownOr(v.defined, v.block), kPlain)   \
  F(defs, kPlain) F(instrumented, kPlain) F(durations, kPlain)                                    \
  N(def, num_regs, kPlain) N(def, static_shared_bytes, kPlain) N(def, dyn_shared_bytes, kPlain)   \
  N(def, local_bytes, kPlain) N(def, carveout_pct, kOmitEmpty) N(def, occupancy, kPlain)          \
  N(def, waves, kPlain)

#define GFL_REPORT_JSON_Occupancy(F, K, N, L)                                                     \
  F(occupancy, kDec6) F(reg_occupancy, kDec6) F(smem_occupancy, kDec6) F(warp_occupancy, kDec6)   \
  F(block_occupancy, kDec6) K("limiting_resource", v.limiting, kPlain)                            \
  F(max_active_blocks, kPlain)

#define GFL_REPORT_JSON_KernelCard(F, K, N, L)                                                    \
  K("name", cardGroup(v, r).name, kPlain)                                                         \
  K("grid", knownOr(cardGroup(v, r).defined, cardGroup(v, r).grid), kPlain)                       \
  K("block", knownOr(cardGroup(v, r).defined, cardGroup(v, r).block), kPlain)                     \
  K("group_index", static_cast<uint64_t>(v.group), kPlain)                                        \
  K("launches", cardGroup(v, r).durations.count, kPlain)                                          \
  K("total_ns", cardGroup(v, r).durations.total_ns, kPlain)                                       \
  F(share_pct, kDec2)                                                                             \
  K("occupancy", groupOccupancy(cardGroup(v, r)), kDec6)                                          \
  K("limiting_resource", groupLimiter(cardGroup(v, r)), kPlain)                                   \
  K("waves", cardGroup(v, r).def.waves, kPlain)                                                   \
  F(sass, kPlain) F(stall_samples, kPlain) F(patched_samples, kPlain)                             \
  K("top_stalls", v.stalls, kPlain)                                                               \
  K("global_traffic_estimate", v.bandwidth, kPlain) /* an upper bound on DRAM traffic */          \
  K("clocks", cardGroup(v, r).clocks, kPlain)                                                     \
  F(advice, kPlain)

#define GFL_REPORT_JSON_CardSass(F, K, N, L)                                                      \
  F(launches, kPlain) F(function_groups, kPlain) N(totals, sectors_global, kPlain)                \
  N(totals, sectors_global_ideal, kPlain) F(memory_efficiency_pct, kDec2)                         \
  F(threads_per_warp, kDec3) F(warp_efficiency_pct, kDec2)

#define GFL_REPORT_JSON_CardStall(F, K, N, L)                                                     \
  F(reason, kPlain) F(label, kPlain) F(samples, kPlain) F(pct, kDec2)

#define GFL_REPORT_JSON_CardBandwidth(F, K, N, L)                                                 \
  F(bytes_per_launch, kDec1) F(duration_ns, kDec1)                                                \
  K("duration_source", v.clean_duration ? "clean_median" : "instrumented_median", kPlain)        \
  F(duration_launches, kPlain) F(achieved_bps, kDec1)                                             \
  K("peak_bps", knownOr(v.peak_bps > 0, v.peak_bps), kDec1)                                       \
  K("peak_pct", knownOr(v.peak_bps > 0, v.peak_pct), kDec3)

#define GFL_REPORT_JSON_ClockWindow(F, K, N, L)                                                   \
  F(samples, kPlain) K("nearest_sample", v.nearest, kPlain) F(nearest_gap_ns, kPlain)             \
  K("interval_resolution_ns", v.resolution_ns, kPlain)                                            \
  K("clk_sm_avg_mhz", average(v.clk_sm), kDec1) K("power_avg_w", average(v.power_w), kDec3)       \
  F(throttle_samples, kPlain) K("throttle_reasons", v.throttle, kPlain)

#define GFL_REPORT_JSON_CardAdvice(F, K, N, L) F(kind, kPlain) F(text, kPlain)

#define GFL_REPORT_JSON_TransferSummary(F, K, N, L)                                               \
  F(copies, kPlain) K("bytes", v.copy_bytes, kPlain) F(pageable_copies, kPlain)                   \
  F(pageable_bytes, kPlain) F(directions, kPlain) F(memsets, kPlain)

#define GFL_REPORT_JSON_TransferStats(F, K, N, L)                                                 \
  F(kind, kPlain) F(count, kPlain) F(bytes, kPlain) F(total_ns, kPlain)                           \
  F(throughput_bps, kDec1) F(pageable, kPlain)

#define GFL_REPORT_JSON_SyncSummary(F, K, N, L)                                                   \
  F(enabled, kPlain) F(count, kPlain) F(total_ns, kPlain) F(kinds, kPlain) F(scopes, kPlain)

#define GFL_REPORT_JSON_SyncStats(F, K, N, L)                                                     \
  F(kind, kPlain) F(count, kPlain) F(total_ns, kPlain) F(max_ns, kPlain)

#define GFL_REPORT_JSON_SyncScopeStats(F, K, N, L)                                                \
  F(path, kPlain) K("name", scopePathName(r.scopes, v.path), kPlain) F(count, kPlain)             \
  F(total_ns, kPlain)

#define GFL_REPORT_JSON_MemorySummary(F, K, N, L)                                                 \
  F(enabled, kPlain) F(allocs, kPlain) F(frees, kPlain) F(bytes, kPlain) F(peak_in_use, kPlain)   \
  F(peak_ts_ns, kPlain) F(in_use_at_end, kPlain) F(kinds, kPlain) F(scopes, kPlain)

#define GFL_REPORT_JSON_MemoryKindStats(F, K, N, L)                                               \
  F(kind, kPlain) F(allocs, kPlain) F(frees, kPlain) F(bytes, kPlain) F(largest, kPlain)

#define GFL_REPORT_JSON_MemoryScopeStats(F, K, N, L)                                              \
  F(path, kPlain) K("name", scopePathName(r.scopes, v.path), kPlain) F(allocs, kPlain)            \
  F(bytes, kPlain)

#define GFL_REPORT_JSON_GpuSystemStats(F, K, N, L)                                                \
  F(gpu, kPlain) F(samples, kPlain) F(util_gpu, kPlain) F(util_mem, kPlain) F(temp_c, kPlain)     \
  F(power_w, kPlain) F(power_limit_w, kDec3) F(energy_j, kDec3) F(energy_source, kPlain)          \
  F(vram_peak_bytes, kPlain) F(vram_total_bytes, kPlain) F(clk_sm, kPlain) F(clk_mem, kPlain)     \
  F(pcie_rx_kbps, kPlain) F(pcie_tx_kbps, kPlain) F(throttle_samples, kPlain) F(throttle, kPlain)

#define GFL_REPORT_JSON_Stat(F, K, N, L)                                                          \
  K("samples", v.n, kPlain) K("avg", v.avg(), kDec3) F(min, kDec3) F(max, kDec3)

#define GFL_REPORT_JSON_ThrottleShare(F, K, N, L)                                                 \
  F(reason, kPlain) F(samples, kPlain) F(pct, kDec2)

#define GFL_REPORT_JSON_HostSystemStats(F, K, N, L)                                               \
  F(samples, kPlain) F(cpu_pct, kPlain) F(proc_cpu_pct, kPlain) F(ram_peak_bytes, kPlain)         \
  F(ram_total_bytes, kPlain) F(rss_peak_bytes, kPlain)

#define GFL_REPORT_JSON_ScopeSummary(F, K, N, L)                                                  \
  F(unfinished, kPlain) F(unmatched_ends, kPlain) F(kernels_outside, kPlain)                      \
  F(gpu_outside_ns, kPlain) K("paths", v.rows, kPlain)

// "p" as in the log's scope records.
#define GFL_REPORT_JSON_ScopeRow(F, K, N, L)                                                      \
  K("p", v.path, kPlain) F(parent, kPlain) F(name, kPlain) F(depth, kPlain) F(calls, kPlain)      \
  F(unfinished, kPlain) F(total_ns, kPlain) F(max_ns, kPlain) F(kernels_self, kPlain)             \
  F(kernels_incl, kPlain) F(gpu_self_ns, kPlain) F(gpu_incl_ns, kPlain) F(copies_self, kPlain)    \
  F(copies_incl, kPlain) F(copy_bytes_self, kPlain) F(copy_bytes_incl, kPlain)

#define GFL_REPORT_JSON_ProfileSummary(F, K, N, L)                                                \
  F(has_sass, kPlain) F(has_pc, kPlain) F(warp_size, kPlain) F(sass, kPlain)                      \
  F(stall_samples, kPlain) F(functions, kPlain) F(ranges, kPlain)

// Efficiencies over the session's warp size (ProfileSummary::warp_size).
#define GFL_REPORT_JSON_SassTotals(F, K, N, L)                                                    \
  F(inst_executed, kPlain) F(thread_inst_executed, kPlain) F(sectors_global, kPlain)              \
  F(sectors_global_ideal, kPlain) K("threads_per_warp", v.threadsPerWarp(), kDec3)                \
  K("warp_efficiency_pct", v.warpEfficiencyPct(r.profile.warp_size), kDec2)                       \
  K("memory_efficiency_pct", v.memoryEfficiencyPct(), kDec2)

#define GFL_REPORT_JSON_FunctionProfile(F, K, N, L)                                               \
  F(func, kPlain) F(name, kPlain) F(has_sass, kPlain) F(launches, kPlain) F(sass, kPlain)         \
  F(stall_samples, kPlain) F(patched_samples, kPlain) F(stalls, kPlain)                           \
  K("hot_by", v.hot_by_samples ? "samples" : "inst_executed", kPlain)                             \
  F(hot, kPlain) F(hints, kPlain)

#define GFL_REPORT_JSON_StallCount(F, K, N, L) F(reason, kPlain) F(label, kPlain) F(samples, kPlain)

#define GFL_REPORT_JSON_HotInstruction(F, K, N, L)                                                \
  F(pc, kPlain) F(sass, kPlain) F(source, kPlain) F(samples, kPlain) F(top_stall, kPlain)         \
  F(inst_executed, kPlain) F(thread_inst_executed, kPlain)

#define GFL_REPORT_JSON_Hint(F, K, N, L) F(kind, kPlain) F(subject, kPlain) F(text, kPlain)

// kernel and path only for per-kernel ranges and scopes; ".sum" metrics are totals, others means.
#define GFL_REPORT_JSON_RangeCounterRow(F, K, N, L)                                               \
  F(range, kPlain) F(kernel, kOmitEmpty) F(instances, kPlain) F(path, kOmitEmpty)                 \
  F(metrics, kDec6)

#define GFL_REPORT_JSON_CollectionInfo(F, K, N, L)                                                \
  F(notes, kPlain) F(dropped, kPlain) F(overhead_ns, kPlain) F(cpu_time_ns, kPlain)               \
  F(buffers, kPlain) F(bytes_written, kPlain) F(reader_warnings, kPlain) F(records, kPlain)

#define GFL_REPORT_JSON_Note(F, K, N, L) L()
// clang-format on

}  // namespace gpufl::report
