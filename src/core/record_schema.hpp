// The field tables of the log format: every record type, and every field of it, described once.
//
// One X-macro per type lists its fields in the order the writer puts them on the line:
//   X(member, "json key", presence, "unit")
// - member: the field of the struct in events.hpp. The structs stay the one definition of the
//   types; each table is checked against its struct below (same number of fields, and every row
//   names a real member).
// - json key: its key on the wire (docs/log-format.md).
// - presence: Required (a reader rejects the record without it; always written), Optional (a
//   reader accepts the record without it; written always, or when set for a std::optional),
//   OmitDefault (optional, and written only when not empty / zero / false).
// - unit: "ns", "bytes", "%", ... or "" (a count, an id, a name).
// The C++ type, and from it the kind of JSON value, comes from the member's declaration.
//
// Generated from the tables: the writer (formatRecord) and parser (parseRecord) of most records
// (src/log: kernel_def's occupancy flattened, enums by their wire names, session_start's devices),
// the Python column tables of the records whose DataFrame is their fields
// (python/src/record_columns.hpp), the round-trip test over every field of every record
// (src/log/schema_roundtrip_test.cpp), and the checks that docs/log-format.md and the fuzz
// dictionary name every key (record_schema_test.cpp). The record types themselves are listed in
// record_list.hpp. Rows whose wire form is not the member's value as such (a duration written for
// an end time, a flag carried by the record type) are marked in a comment; their record's writer
// and parser are hand-written, each with the reason beside it (ndjson_format.cpp,
// record_types.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/events.hpp"
#include "core/record_list.hpp"

namespace gpufl::schema {

enum class Presence { Required, Optional, OmitDefault };

// The kind of JSON value a field is written as.
enum class Kind {
  Int,
  UInt,
  Double,
  Bool,
  String,
  Enum,
  Dim3,
  StringList,
  NumberMap,
  JsonMap,
  Object,
  ObjectList
};

// clang-format off
// ---- nested objects (not records) ----
#define GFL_FIELDS_DeviceInfo(X)                                             \
  X(id, "id", Optional, "")                                                  \
  X(name, "name", Optional, "")                                              \
  X(uuid, "uuid", Optional, "")                                              \
  X(cc_major, "cc_major", Optional, "")                                      \
  X(cc_minor, "cc_minor", Optional, "")                                      \
  X(sm_count, "sm_count", Optional, "")                                      \
  X(warp_size, "warp_size", Optional, "threads")                             \
  X(max_threads_per_sm, "max_threads_per_sm", Optional, "threads")           \
  X(max_threads_per_block, "max_threads_per_block", Optional, "threads")     \
  X(max_blocks_per_sm, "max_blocks_per_sm", Optional, "blocks")              \
  X(regs_per_sm, "regs_per_sm", Optional, "registers")                       \
  X(regs_per_block, "regs_per_block", Optional, "registers")                 \
  X(smem_per_sm_bytes, "smem_per_sm_bytes", Optional, "bytes")               \
  X(smem_per_block_bytes, "smem_per_block_bytes", Optional, "bytes")         \
  X(smem_per_block_optin_bytes, "smem_per_block_optin_bytes", Optional, "bytes") \
  X(smem_reserved_per_block_bytes, "smem_reserved_per_block_bytes", Optional, "bytes") \
  X(l2_bytes, "l2_bytes", Optional, "bytes")                                 \
  X(global_mem_bytes, "global_mem_bytes", Optional, "bytes")                 \
  X(mem_bus_bits, "mem_bus_bits", Optional, "bits")                          \
  X(clock_khz, "clock_khz", Optional, "kHz")                                 \
  X(mem_clock_khz, "mem_clock_khz", Optional, "kHz")

// Flattened into kernel_def (present when any of its keys is).
#define GFL_FIELDS_Occupancy(X)                                              \
  X(occupancy, "occupancy", Optional, "fraction")                            \
  X(reg_occupancy, "reg_occupancy", Optional, "fraction")                    \
  X(smem_occupancy, "smem_occupancy", Optional, "fraction")                  \
  X(warp_occupancy, "warp_occupancy", Optional, "fraction")                  \
  X(block_occupancy, "block_occupancy", Optional, "fraction")                \
  X(limiting, "limiting_resource", Optional, "")                             \
  X(max_active_blocks, "max_active_blocks", Optional, "blocks")

// ---- records ----
#define GFL_FIELDS_SessionStart(X)                                           \
  X(schema, "schema", Optional, "")                                          \
  X(session_id, "session_id", Required, "")                                  \
  X(app, "app", Optional, "")                                                \
  X(pid, "pid", Optional, "")                                                \
  X(host, "host", Optional, "")                                              \
  X(version, "version", Optional, "")                                        \
  X(engine, "engine", Optional, "")                                          \
  X(start_ns, "start_ns", Required, "ns")                                    \
  X(start_unix_ns, "start_unix_ns", Required, "ns")                          \
  X(options, "options", Optional, "")                                        \
  X(devices, "devices", Optional, "") /* device channel only */

#define GFL_FIELDS_SessionEnd(X)                                             \
  X(end_ns, "end_ns", Required, "ns")                                        \
  X(kernels, "kernels", Optional, "")                                        \
  X(memcpys, "memcpys", Optional, "")                                        \
  X(scopes, "scopes", Optional, "")                                          \
  X(dropped, "dropped", Optional, "records")                                 \
  X(overhead_ns, "overhead_ns", Optional, "ns")                              \
  X(cpu_time_ns, "cpu_time_ns", Optional, "ns")                              \
  X(buffers, "buffers", Optional, "")                                        \
  X(bytes_written, "bytes_written", Optional, "bytes")

// The device's fields are flattened into the record; `id` is required there.
#define GFL_FIELDS_DeviceEvent(X)                                            \
  X(device, "device", Required, "")

#define GFL_FIELDS_Note(X)                                                   \
  X(ts_ns, "ts_ns", Optional, "ns")                                          \
  X(feature, "feature", Required, "")                                        \
  X(status, "status", Required, "")                                          \
  X(reason, "reason", Optional, "")

#define GFL_FIELDS_KernelDef(X)                                              \
  X(id, "k", Required, "")                                                   \
  X(name, "name", Required, "")                                              \
  X(demangled, "demangled", Optional, "") /* read as `name` when absent */   \
  X(device, "device", Optional, "")                                          \
  X(context, "context", Optional, "")                                        \
  X(grid, "grid", Optional, "blocks")                                        \
  X(block, "block", Optional, "threads")                                     \
  X(num_regs, "num_regs", Optional, "registers")                             \
  X(static_shared_bytes, "static_shared_bytes", Optional, "bytes")           \
  X(dyn_shared_bytes, "dyn_shared_bytes", Optional, "bytes")                 \
  X(local_bytes, "local_bytes", Optional, "bytes")                           \
  X(carveout_pct, "carveout_pct", Optional, "%")                             \
  X(occupancy, "occupancy", Optional, "") /* flattened: Occupancy's keys */  \
  X(waves, "waves", Optional, "")

// Hand-written writer and parser (delta encoding, ndjson_format.cpp): start_ns/corr are absolute or given as
// dt_ns/dcorr, end_ns travels as dur_ns.
#define GFL_FIELDS_KernelEvent(X)                                            \
  X(end_ns, "dur_ns", Required, "ns") /* end_ns - start_ns */                \
  X(def_id, "k", Required, "")                                               \
  X(stream, "stream", Optional, "")                                          \
  X(scope_path, "scope", Optional, "")                                       \
  X(stack_id, "stack", OmitDefault, "")                                      \
  X(graph_id, "graph", OmitDefault, "")                                      \
  X(instrumented, "instr", OmitDefault, "")                                  \
  X(correlation_id, "corr", Required, "") /* or dcorr */                     \
  X(start_ns, "start_ns", Required, "ns") /* or dt_ns */

// memcpy_event, or memset_event when is_memset (then without kind).
#define GFL_FIELDS_MemcpyEvent(X)                                            \
  X(is_memset, "type", Required, "") /* memcpy_event or memset_event */      \
  X(correlation_id, "corr", Optional, "")                                    \
  X(start_ns, "start_ns", Required, "ns")                                    \
  X(kind, "kind", Optional, "")                                              \
  X(bytes, "bytes", Required, "bytes")                                       \
  X(device, "device", Optional, "")                                          \
  X(stream, "stream", Optional, "")                                          \
  X(scope_path, "scope", Optional, "")                                       \
  X(src_kind, "src_kind", OmitDefault, "")                                   \
  X(dst_kind, "dst_kind", OmitDefault, "")                                   \
  X(value, "value", Optional, "")                                            \
  X(end_ns, "dur_ns", Required, "ns") /* end_ns - start_ns */

#define GFL_FIELDS_SyncEvent(X)                                              \
  X(correlation_id, "corr", Optional, "")                                    \
  X(start_ns, "start_ns", Required, "ns")                                    \
  X(kind, "kind", Optional, "")                                              \
  X(stream, "stream", OmitDefault, "")                                       \
  X(scope_path, "scope", OmitDefault, "")                                    \
  X(end_ns, "dur_ns", Required, "ns") /* end_ns - start_ns */

#define GFL_FIELDS_MemoryEvent(X)                                            \
  X(correlation_id, "corr", Optional, "")                                    \
  X(ts_ns, "ts_ns", Required, "ns")                                          \
  X(is_free, "op", Required, "") /* "alloc" or "free" */                     \
  X(bytes, "bytes", Required, "bytes")                                       \
  X(address, "address", Optional, "")                                        \
  X(device, "device", Optional, "")                                          \
  X(memory_kind, "kind", OmitDefault, "")                                    \
  X(stream, "stream", OmitDefault, "")                                       \
  X(scope_path, "scope", OmitDefault, "")

#define GFL_FIELDS_StackDef(X)                                               \
  X(id, "id", Required, "")                                                  \
  X(frames, "frames", Required, "")

#define GFL_FIELDS_ScopePath(X)                                              \
  X(id, "p", Required, "")                                                   \
  X(parent, "parent", Optional, "")                                          \
  X(name, "name", Required, "")                                              \
  X(depth, "depth", Optional, "")

// Order measured like kernel_event's (ndjson_format.cpp): the instance id and time first, the path's constant
// fields last.
#define GFL_FIELDS_ScopeBegin(X)                                             \
  X(id, "id", Required, "")                                                  \
  X(tid, "tid", Optional, "")                                                \
  X(ts_ns, "ts_ns", Required, "ns")                                          \
  X(path, "p", Required, "")                                                 \
  X(name, "name", Optional, "")                                              \
  X(tag, "tag", Optional, "")                                                \
  X(depth, "depth", Optional, "")

#define GFL_FIELDS_ScopeEnd(X)                                               \
  X(id, "id", Required, "")                                                  \
  X(tid, "tid", Optional, "")                                                \
  X(ts_ns, "ts_ns", Required, "ns")                                          \
  X(path, "p", Required, "")

// throttle_reasons is written when throttle is set or the list is not empty (hand-written writer).
#define GFL_FIELDS_GpuSample(X)                                              \
  X(gpu, "gpu", Required, "")                                                \
  X(ts_ns, "ts_ns", Required, "ns")                                          \
  X(util_gpu, "util_gpu", Optional, "%")                                     \
  X(util_mem, "util_mem", Optional, "%")                                     \
  X(mem_used_bytes, "mem_used_bytes", Optional, "bytes")                     \
  X(mem_total_bytes, "mem_total_bytes", Optional, "bytes")                   \
  X(temp_c, "temp_c", Optional, "C")                                         \
  X(power_mw, "power_mw", Optional, "mW")                                    \
  X(power_limit_mw, "power_limit_mw", Optional, "mW")                        \
  X(energy_mj, "energy_mj", Optional, "mJ")                                  \
  X(clk_sm, "clk_sm", Optional, "MHz")                                       \
  X(clk_mem, "clk_mem", Optional, "MHz")                                     \
  X(clk_gfx, "clk_gfx", Optional, "MHz")                                     \
  X(pcie_rx_kbps, "pcie_rx_kbps", Optional, "kB/s")                          \
  X(pcie_tx_kbps, "pcie_tx_kbps", Optional, "kB/s")                          \
  X(throttle, "throttle", Optional, "")                                      \
  X(throttle_reasons, "throttle_reasons", Optional, "")

#define GFL_FIELDS_HostSample(X)                                             \
  X(ts_ns, "ts_ns", Required, "ns")                                          \
  X(cpu_pct, "cpu_pct", Optional, "%")                                       \
  X(proc_cpu_pct, "proc_cpu_pct", Optional, "%")                             \
  X(ram_used_bytes, "ram_used_bytes", Optional, "bytes")                     \
  X(ram_total_bytes, "ram_total_bytes", Optional, "bytes")                   \
  X(proc_rss_bytes, "proc_rss_bytes", Optional, "bytes")

#define GFL_FIELDS_SassMetric(X)                                             \
  X(func, "func", Required, "")                                              \
  X(pc, "pc", Required, "")                                                  \
  X(launches, "launches", Optional, "")                                      \
  X(inst_executed, "inst_executed", Optional, "instructions")                \
  X(thread_inst_executed, "thread_inst_executed", Optional, "instructions")  \
  X(sectors_global, "sectors_global", Optional, "sectors")                   \
  X(sectors_global_ideal, "sectors_global_ideal", Optional, "sectors")       \
  X(sass, "sass", OmitDefault, "")                                           \
  X(source, "source", OmitDefault, "")

#define GFL_FIELDS_PcSample(X)                                               \
  X(func, "func", Required, "")                                              \
  X(pc, "pc", Required, "")                                                  \
  X(stall, "stall", Required, "")                                            \
  X(count, "count", Required, "samples")                                     \
  X(sass, "sass", OmitDefault, "")                                           \
  X(source, "source", OmitDefault, "")                                       \
  X(patched, "patched", OmitDefault, "")

#define GFL_FIELDS_RangeCounters(X)                                          \
  X(range, "range", Required, "")                                            \
  X(kernel, "kernel", OmitDefault, "")                                       \
  X(path, "p", OmitDefault, "")                                              \
  X(metrics, "metrics", Required, "")

#define GFL_FIELDS_BenchmarkResult(X)                                        \
  X(name, "name", Required, "")                                              \
  X(shape, "shape", OmitDefault, "")                                         \
  X(dtype, "dtype", OmitDefault, "")                                         \
  X(device, "device", Optional, "")                                          \
  X(ts_ns, "ts_ns", Optional, "ns")                                          \
  X(method, "method", OmitDefault, "")                                       \
  X(reps, "reps", Optional, "")                                              \
  X(warmup_reps, "warmup_reps", Optional, "")                                \
  X(ops_per_rep, "ops_per_rep", Optional, "")                                \
  X(flush_l2, "flush_l2", OmitDefault, "")                                   \
  X(median_ns, "median_ns", Required, "ns")                                  \
  X(min_ns, "min_ns", Optional, "ns")                                        \
  X(p10_ns, "p10_ns", Optional, "ns")                                        \
  X(p90_ns, "p90_ns", Optional, "ns")                                        \
  X(max_ns, "max_ns", Optional, "ns")                                        \
  X(mean_ns, "mean_ns", Optional, "ns")                                      \
  X(flops, "flops", OmitDefault, "flop")                                     \
  X(bytes, "bytes", OmitDefault, "bytes")                                    \
  X(tflops, "tflops", OmitDefault, "TFLOP/s")                                \
  X(gbps, "gbps", OmitDefault, "GB/s")                                       \
  X(peak_tflops, "peak_tflops", OmitDefault, "TFLOP/s")                      \
  X(peak_gbps, "peak_gbps", OmitDefault, "GB/s")                             \
  X(clk_sm_min_mhz, "clk_sm_min_mhz", Optional, "MHz")                       \
  X(clk_sm_max_mhz, "clk_sm_max_mhz", Optional, "MHz")                       \
  X(clk_sm_limit_mhz, "clk_sm_limit_mhz", Optional, "MHz")                   \
  X(warnings, "warnings", OmitDefault, "")

#define GFL_FIELDS_InFlightLaunch(X)                                         \
  X(correlation_id, "corr", Required, "")                                    \
  X(kind, "kind", Optional, "")                                              \
  X(name, "name", Optional, "")                                              \
  X(stream, "stream", OmitDefault, "")                                       \
  X(stream_handle, "stream_handle", OmitDefault, "")                         \
  X(context, "context", OmitDefault, "")                                     \
  X(tid, "tid", OmitDefault, "")                                             \
  X(scope_path, "scope", OmitDefault, "")                                    \
  X(stack_id, "stack", OmitDefault, "")                                      \
  X(launch_ns, "launch_ns", Optional, "ns")                                  \
  X(suspect, "suspect", OmitDefault, "")

#define GFL_FIELDS_BlockedThread(X)                                          \
  X(tid, "tid", Required, "")                                                \
  X(api, "api", Optional, "")                                                \
  X(since_ns, "since_ns", Optional, "ns")                                    \
  X(stream_handle, "stream_handle", OmitDefault, "")                         \
  X(scope_path, "scope", OmitDefault, "")

#define GFL_FIELDS_LastKernel(X)                                             \
  X(stream, "stream", Optional, "")                                          \
  X(def_id, "k", Required, "")                                               \
  X(correlation_id, "corr", Optional, "")                                    \
  X(end_ns, "end_ns", Optional, "ns")

#define GFL_FIELDS_Incident(X)                                               \
  X(ts_ns, "ts_ns", Required, "ns")                                          \
  X(kind, "kind", Required, "")                                              \
  X(reason, "reason", Optional, "")                                          \
  X(api, "api", OmitDefault, "")                                             \
  X(error_code, "error_code", Optional, "")                                  \
  X(error_name, "error_name", OmitDefault, "")                               \
  X(tid, "tid", OmitDefault, "")                                             \
  X(scope_path, "scope", OmitDefault, "")                                    \
  X(attribution, "attribution", OmitDefault, "")                             \
  X(requested_bytes, "requested_bytes", Optional, "bytes")                   \
  X(free_bytes, "free_bytes", Optional, "bytes")                             \
  X(total_bytes, "total_bytes", Optional, "bytes")                           \
  X(in_flight_count, "in_flight_count", Optional, "")                        \
  X(in_flight, "in_flight", Optional, "")                                    \
  X(blocked, "blocked", Optional, "")                                        \
  X(last_kernels, "last_kernels", Optional, "")                              \
  X(gpu_mem_used_bytes, "gpu_mem_used_bytes", Optional, "bytes")             \
  X(gpu_mem_total_bytes, "gpu_mem_total_bytes", Optional, "bytes")           \
  X(gpu_util, "gpu_util", Optional, "%")                                     \
  X(gpu_temp_c, "gpu_temp_c", Optional, "C")                                 \
  X(gpu_clk_sm, "gpu_clk_sm", Optional, "MHz")                               \
  X(gpu_power_mw, "gpu_power_mw", Optional, "mW")                            \
  X(gpu_sample_age_ns, "gpu_sample_age_ns", Optional, "ns")

#define GFL_FIELDS_HealthExample(X)                                          \
  X(kind, "kind", Required, "")                                              \
  X(record, "record", Optional, "")                                          \
  X(seen_ns, "seen_ns", Optional, "ns")                                      \
  X(correlation_id, "corr", OmitDefault, "")                                 \
  X(start_ns, "start_ns", OmitDefault, "ns")                                 \
  X(end_ns, "end_ns", OmitDefault, "ns")                                     \
  X(bytes, "bytes", OmitDefault, "bytes")                                    \
  X(tid, "tid", OmitDefault, "")                                             \
  X(reference_ns, "reference_ns", OmitDefault, "ns")                         \
  X(offset_ns, "offset_ns", OmitDefault, "ns")

#define GFL_FIELDS_Health(X)                                                 \
  X(ts_ns, "ts_ns", Required, "ns")                                          \
  X(period_ns, "period_ns", Optional, "ns")                                  \
  X(final, "final", OmitDefault, "")                                         \
  X(cpu_ns, "cpu_ns", Optional, "ns")                                        \
  X(cpu_pct, "cpu_pct", Optional, "%")                                       \
  X(rss_bytes, "rss_bytes", Optional, "bytes")                               \
  X(rss_growth_bytes, "rss_growth_bytes", Optional, "bytes")                 \
  X(buffer_bytes, "buffer_bytes", Optional, "bytes")                         \
  X(activity_buffers, "activity_buffers", Optional, "")                      \
  X(activity_buffers_pending, "activity_buffers_pending", Optional, "")      \
  X(activity_buffers_peak, "activity_buffers_peak", Optional, "")            \
  X(records, "records", Optional, "records")                                 \
  X(records_per_s, "records_per_s", Optional, "records/s")                   \
  X(kernels, "kernels", Optional, "")                                        \
  X(dropped, "dropped", Optional, "records")                                 \
  X(checked, "checked", Optional, "records")                                 \
  X(violations, "violations", Optional, "records")                           \
  X(violations_since_ns, "violations_since_ns", Optional, "ns")              \
  X(examples, "examples", OmitDefault, "")                                   \
  X(clock_mode, "clock_mode", OmitDefault, "")                               \
  X(clock_offset_ns, "clock_offset_ns", Optional, "ns")                      \
  X(clock_drift_ns, "clock_drift_ns", Optional, "ns")                        \
  X(clock_correction_ns, "clock_correction_ns", Optional, "ns")              \
  X(cupti_version, "cupti_version", OmitDefault, "")                         \
  X(cupti_issues, "cupti_issues", OmitDefault, "")                           \
  X(step_down, "step_down", OmitDefault, "")

// clang-format on

// The wire names of the enum-valued fields (the event model's names, events.hpp), for the
// writer and parser generated from the tables. A name this reader does not know (a newer writer's)
// reads as the enum's first value (None / Unknown) rather than losing the record.
inline const char* wireName(LimitingResource v) {
  return limitingResourceName(v);
}
inline const char* wireName(Engine v) {
  return engineName(v);
}
inline const char* wireName(CopyKind v) {
  return copyKindName(v);
}
inline const char* wireName(SyncKind v) {
  return syncKindName(v);
}
inline void fromWireName(const std::string& name, LimitingResource& out) {
  out = limitingResourceFromName(name).value_or(LimitingResource{});
}
inline void fromWireName(const std::string& name, Engine& out) {
  out = engineFromName(name).value_or(Engine{});
}
inline void fromWireName(const std::string& name, CopyKind& out) {
  out = copyKindFromName(name).value_or(CopyKind{});
}
inline void fromWireName(const std::string& name, SyncKind& out) {
  out = syncKindFromName(name).value_or(SyncKind{});
}

struct FieldInfo {
  std::string_view member;
  std::string_view key;
  Presence presence;
  std::string_view unit;
  Kind kind;
};

template <typename T>
struct Schema;  // specialised below for every record and nested object

namespace detail {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsMap : std::false_type {};
template <typename V>
struct IsMap<std::map<std::string, V>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename V>
struct IsVector<std::vector<V>> : std::true_type {};

// Number of fields of an aggregate (brace initialisation with as many convertible-to-anything
// values as it takes): lets a table be checked against its struct.
struct Any {
  template <typename U>
  operator U()
      const;  // NOLINT(google-explicit-constructor): never called, only for overload resolution
};
template <typename T, typename... A>
constexpr size_t memberCount() {
  if constexpr (requires { T{A{}..., Any{}}; })
    return memberCount<T, A..., Any>();
  else
    return sizeof...(A);
}

}  // namespace detail

template <typename T>
constexpr Kind kindOf() {
  using detail::IsMap, detail::IsOptional, detail::IsVector;
  if constexpr (IsOptional<T>::value)
    return kindOf<typename T::value_type>();
  else if constexpr (std::is_same_v<T, bool>)
    return Kind::Bool;
  else if constexpr (std::is_enum_v<T>)
    return Kind::Enum;
  else if constexpr (std::is_floating_point_v<T>)
    return Kind::Double;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return Kind::Int;
  else if constexpr (std::is_integral_v<T>)
    return Kind::UInt;
  else if constexpr (std::is_same_v<T, std::string>)
    return Kind::String;
  else if constexpr (std::is_same_v<T, Dim3>)
    return Kind::Dim3;
  else if constexpr (std::is_same_v<T, std::vector<std::string>>)
    return Kind::StringList;
  else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>)
    return Kind::JsonMap;
  else if constexpr (IsMap<T>::value)
    return Kind::NumberMap;
  else if constexpr (IsVector<T>::value)
    return Kind::ObjectList;
  else
    return Kind::Object;
}

#define GFL_SCHEMA_ROW_(member, key, presence, unit) \
  FieldInfo{#member, key, Presence::presence, unit, kindOf<decltype(Type::member)>()},
#define GFL_SCHEMA_VISIT_(member, key, presence, unit) f(fields[i++], e.member);
#define GFL_SCHEMA_VISIT2_(member, key, presence, unit) f(fields[i++], a.member, b.member);
#define GFL_SCHEMA_DEFINE_(T, type_, channel_)                                             \
  template <>                                                                              \
  struct Schema<T> {                                                                       \
    using Type = T;                                                                        \
    static constexpr std::string_view type = type_;                                        \
    static constexpr std::string_view channel = channel_;                                  \
    static constexpr FieldInfo fields[] = {GFL_FIELDS_##T(GFL_SCHEMA_ROW_)};               \
    /* Calls f(const FieldInfo&, member) for every row, in table order. */                 \
    template <typename E, typename F>                                                      \
    static void forEach(E& e, F&& f) {                                                     \
      size_t i = 0;                                                                        \
      GFL_FIELDS_##T(GFL_SCHEMA_VISIT_)                                                    \
    }                                                                                      \
    /* Calls f(const FieldInfo&, member of a, member of b) for every row (comparisons). */ \
    template <typename E, typename F>                                                      \
    static void forEachPair(E& a, E& b, F&& f) {                                           \
      size_t i = 0;                                                                        \
      GFL_FIELDS_##T(GFL_SCHEMA_VISIT2_)                                                   \
    }                                                                                      \
  };
#define GFL_SCHEMA_RECORD_(T, type_, channel_, on) GFL_SCHEMA_DEFINE_(T, type_, channel_)

GFL_SCHEMA_DEFINE_(DeviceInfo, "", "")
GFL_SCHEMA_DEFINE_(Occupancy, "", "")
GFL_SCHEMA_DEFINE_(InFlightLaunch, "", "")
GFL_SCHEMA_DEFINE_(BlockedThread, "", "")
GFL_SCHEMA_DEFINE_(LastKernel, "", "")
GFL_SCHEMA_DEFINE_(HealthExample, "", "")
GFL_RECORDS(GFL_SCHEMA_RECORD_)

#define GFL_SCHEMA_CALL_(T, type_, channel_, on) f.template operator()<T>();
// Calls f.template operator()<T>() for every record type T, in table order
// (f: a lambda []<typename T>() {...}).
template <typename F>
void forEachRecordType(F&& f) {
  GFL_RECORDS(GFL_SCHEMA_CALL_)
}
#undef GFL_SCHEMA_CALL_

constexpr std::string_view kindName(Kind k) {
  switch (k) {
    case Kind::Int:
      return "int";
    case Kind::UInt:
      return "uint";
    case Kind::Double:
      return "double";
    case Kind::Bool:
      return "bool";
    case Kind::String:
      return "string";
    case Kind::Enum:
      return "enum";
    case Kind::Dim3:
      return "dim3";
    case Kind::StringList:
      return "string_list";
    case Kind::NumberMap:
      return "number_map";
    case Kind::JsonMap:
      return "json_map";
    case Kind::Object:
      return "object";
    case Kind::ObjectList:
      return "object_list";
  }
  return "?";
}

constexpr std::string_view presenceName(Presence p) {
  switch (p) {
    case Presence::Required:
      return "required";
    case Presence::Optional:
      return "optional";
    case Presence::OmitDefault:
      return "omit_default";
  }
  return "?";
}

namespace detail {
// The object type inside an Object / ObjectList member (std::optional<N>, std::vector<N>, N).
template <typename M>
constexpr auto nestedType() {
  if constexpr (IsOptional<M>::value || IsVector<M>::value)
    return nestedType<typename M::value_type>();
  else
    return std::type_identity<M>{};
}
}  // namespace detail

// Calls f(const FieldInfo&, std::string_view parent) for every row of T's table, in order; the rows
// of a nested object's table (session_start.devices, device, kernel_def's occupancy) follow its own
// row, with `parent` its key.
template <typename T, typename F>
void forEachRow(F&& f, std::string_view parent = "") {
  const T probe{};
  Schema<T>::forEach(probe, [&](const FieldInfo& info, const auto& m) {
    f(info, parent);
    using M = std::remove_cvref_t<decltype(m)>;
    if constexpr (kindOf<M>() == Kind::Object || kindOf<M>() == Kind::ObjectList)
      forEachRow<typename decltype(detail::nestedType<M>())::type>(f, info.key);
  });
}

// Each table lists every field of its struct: records have `sid` besides their table's rows.
#define GFL_SCHEMA_CHECK_(T, type_, channel_, on)                             \
  static_assert(detail::memberCount<T>() == std::size(Schema<T>::fields) + 1, \
                "the field table of " #T " does not list every field of the struct");
GFL_RECORDS(GFL_SCHEMA_CHECK_)
static_assert(detail::memberCount<DeviceInfo>() == std::size(Schema<DeviceInfo>::fields));
static_assert(detail::memberCount<Occupancy>() == std::size(Schema<Occupancy>::fields));
static_assert(detail::memberCount<InFlightLaunch>() == std::size(Schema<InFlightLaunch>::fields));
static_assert(detail::memberCount<BlockedThread>() == std::size(Schema<BlockedThread>::fields));
static_assert(detail::memberCount<LastKernel>() == std::size(Schema<LastKernel>::fields));
static_assert(detail::memberCount<HealthExample>() == std::size(Schema<HealthExample>::fields));
#undef GFL_SCHEMA_CHECK_

}  // namespace gpufl::schema
