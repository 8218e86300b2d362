// The event model: every record GPU Flight writes or reads, defined once.
//
// These are value types with units in field names. The NDJSON writer (src/log/ndjson_format.*)
// turns them into lines and the reader (src/log/reader.*) turns lines back into them;
// docs/log-format.md is the wire contract. Optional fields use std::optional so "not measured" is
// never confused with zero.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpufl/profiling_engine.hpp"

namespace gpufl {

inline constexpr int kSchemaVersion = 1;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  bool operator==(const Dim3&) const = default;
};
// "(x,y,z)": how the log, the report and the exports write a grid or block.
std::string dim3Text(const Dim3& d);

// The public ProfilingEngine, under the name the event model uses.
using Engine = ProfilingEngine;
const char* engineName(Engine e);
std::optional<Engine> engineFromName(const std::string& name);

// Static properties of one GPU, from the CUDA runtime (or a log).
struct DeviceInfo {
  uint32_t id = 0;
  std::string name;
  std::string uuid;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int64_t smem_per_sm_bytes = 0;
  int64_t smem_per_block_bytes = 0;
  int64_t smem_per_block_optin_bytes = 0;
  int64_t smem_reserved_per_block_bytes = 0;
  int64_t l2_bytes = 0;
  int64_t global_mem_bytes = 0;
  int mem_bus_bits = 0;
  int clock_khz = 0;
  int mem_clock_khz = 0;
};

// A device learned after session_start was written (under `gpufl trace` the driver cannot be
// queried at start).
struct DeviceEvent {
  std::string sid;
  DeviceInfo device;
};

struct SessionStart {
  std::string sid;         // first 8 hex digits of session_id, carried by every record
  std::string session_id;  // UUID
  int schema = kSchemaVersion;
  std::string app;
  int64_t pid = 0;
  std::string host;
  std::string version;
  Engine engine = Engine::None;
  int64_t start_ns = 0;                        // monotonic
  int64_t start_unix_ns = 0;                   // wall clock at start_ns
  std::map<std::string, std::string> options;  // InitOptions as written (values as JSON text)
  std::vector<DeviceInfo> devices;
};

struct SessionEnd {
  std::string sid;
  int64_t end_ns = 0;
  uint64_t kernels = 0, memcpys = 0, scopes = 0;
  std::map<std::string, uint64_t> dropped;      // source -> records dropped
  std::map<std::string, uint64_t> overhead_ns;  // thread kind -> time spent by gpufl
  uint64_t cpu_time_ns = 0;
  uint64_t buffers = 0;
  uint64_t bytes_written = 0;
};

// What a feature did: on, off or degraded, and why. Shown in the report's collection notes.
struct Note {
  std::string sid;
  int64_t ts_ns = 0;
  std::string feature;
  std::string status;  // "on", "off", "degraded"
  std::string reason;
};

enum class LimitingResource { None, Registers, SharedMem, Warps, Blocks };
const char* limitingResourceName(LimitingResource r);
std::optional<LimitingResource> limitingResourceFromName(const std::string& name);

// Per-resource occupancy: each *_occupancy is what occupancy would be if only that limit existed.
struct Occupancy {
  double occupancy = 0, reg_occupancy = 0, smem_occupancy = 0, warp_occupancy = 0,
         block_occupancy = 0;
  int max_active_blocks = 0;  // per SM
  LimitingResource limiting = LimitingResource::None;
};

// One launch shape of one function on one device (written once, referenced by KernelEvent::def_id).
struct KernelDef {
  std::string sid;
  uint32_t id = 0;
  std::string name;       // mangled
  std::string demangled;  // readable (equal to name when not mangled)
  uint32_t device = 0;
  uint32_t context = 0;
  Dim3 grid, block;
  int num_regs = 0;
  int64_t static_shared_bytes = 0;
  int64_t dyn_shared_bytes = 0;
  int64_t local_bytes = 0;  // per thread
  // The shared-memory carveout the launches of this shape requested (cudaFuncAttributePreferred-
  // SharedMemoryCarveout, percent of the SM's shared memory); unset: no preference. Occupancy
  // depends on it, and two shapes may differ only by it.
  std::optional<int> carveout_pct;
  std::optional<Occupancy> occupancy;
  std::optional<double> waves;  // grid blocks / (max_active_blocks * SMs)
};

struct KernelEvent {
  std::string sid;
  uint32_t def_id = 0;
  uint32_t stream = 0;
  uint32_t scope_path = 0;  // 0 = launched outside any scope
  uint64_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t stack_id = 0;      // 0 = none
  uint32_t graph_id = 0;      // 0 = not from a graph
  bool instrumented = false;  // deep engine active on this launch: duration inflated
};

enum class CopyKind { Unknown, HtoD, DtoH, DtoD, HtoH, PtoP };
const char* copyKindName(CopyKind k);
std::optional<CopyKind> copyKindFromName(const std::string& name);

struct MemcpyEvent {
  std::string sid;
  bool is_memset = false;
  CopyKind kind = CopyKind::Unknown;  // Unknown for memsets
  uint64_t bytes = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint64_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t scope_path = 0;
  std::string src_kind, dst_kind;  // "pageable", "pinned", "device", "managed" or empty
  std::optional<uint32_t> value;   // memset value
};

// The host waiting for the GPU (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), recorded when asked
// (InitOptions::enable_sync_events): cudaStreamSynchronize, cudaDeviceSynchronize, ...
enum class SyncKind {
  Unknown,
  EventSynchronize,
  StreamWaitEvent,
  StreamSynchronize,
  ContextSynchronize
};
const char* syncKindName(SyncKind k);
std::optional<SyncKind> syncKindFromName(const std::string& name);

struct SyncEvent {
  std::string sid;
  SyncKind kind = SyncKind::Unknown;
  uint32_t stream = 0;  // the stream waited for (0: none or the whole context)
  uint64_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t scope_path = 0;  // the calling thread's scope (0: none or unknown)
};

// A device/pinned/managed memory allocation or release (CUPTI_ACTIVITY_KIND_MEMORY2), recorded when
// asked (InitOptions::enable_memory_events): cudaMalloc/cudaFree, their async and host forms, and
// the allocations PyTorch's caching allocator makes underneath.
struct MemoryEvent {
  std::string sid;
  bool is_free = false;
  std::string memory_kind;  // "device", "pinned", "managed", "pageable" or ""
  uint64_t bytes = 0;
  uint64_t address = 0;
  uint32_t device = 0;
  uint32_t stream = 0;  // async (stream-ordered) operations; 0 otherwise
  uint64_t correlation_id = 0;
  int64_t ts_ns = 0;
  uint32_t scope_path = 0;  // the calling thread's scope (0: none or unknown)
};

// One launch gpufl saw that had not completed when an incident was recorded: its launch call was
// made, its activity record had not arrived. Listed in launch order (correlation id).
struct InFlightLaunch {
  uint64_t correlation_id = 0;
  std::string kind;            // "kernel", "graph" (a graph launch), "copy"
  std::string name;            // the kernel's function (mangled), or the API called
  uint32_t stream = 0;         // CUPTI's stream id, as in kernel_event (0: not resolved)
  uint64_t stream_handle = 0;  // the CUstream the launch named (0: the legacy default stream)
  uint64_t context = 0;        // the CUcontext handle
  int64_t tid = 0;             // the launching host thread
  uint32_t scope_path = 0;
  uint32_t stack_id = 0;
  int64_t launch_ns = 0;  // when the launch call was made (a coarse clock: a few ms resolution)
  bool suspect = false;   // one of the launches the incident points at (Incident::attribution)
};

// A host thread inside a call that waits for the GPU (a synchronize, a blocking copy) when an
// incident was recorded.
struct BlockedThread {
  int64_t tid = 0;
  std::string api;
  int64_t since_ns = 0;
  uint64_t stream_handle = 0;  // the stream waited for, where the call names one
  uint32_t scope_path = 0;
};

// A kernel that completed (with times) shortly before an incident: the last ones of each stream.
struct LastKernel {
  uint32_t stream = 0;
  uint32_t def_id = 0;  // kernel_def `k`
  uint64_t correlation_id = 0;
  int64_t end_ns = 0;
};

// What went wrong and what the GPU was doing: a fatal CUDA error, an allocation that ran out of
// memory, a hang, a crash signal, std::terminate, or a dump asked for (docs/incidents.md).
struct Incident {
  std::string sid;
  int64_t ts_ns = 0;
  std::string kind;  // "cuda_error", "out_of_memory", "hang", "signal", "terminate", "dump", "xid"
  std::string reason;                 // one line: what happened
  std::string api;                    // the call that returned the error, blocked, or allocated
  std::optional<int64_t> error_code;  // cudaError_t / CUresult / signal number
  std::string error_name;             // e.g. "cudaErrorIllegalAddress", "SIGSEGV"
  int64_t tid = 0;                    // the thread that saw it (0: a thread of gpufl's)
  uint32_t scope_path = 0;            // that thread's scope
  std::string attribution;            // how the suspects were chosen, and how sure that is
  std::optional<uint64_t> requested_bytes, free_bytes, total_bytes;  // out of memory
  uint64_t in_flight_count = 0;  // launches not complete (the list holds the latest ones)
  std::vector<InFlightLaunch> in_flight;
  std::vector<BlockedThread> blocked;
  std::vector<LastKernel> last_kernels;
  // The GPU's state from the latest NVML sample before the incident (its age in sample_age_ns).
  std::optional<uint64_t> gpu_mem_used_bytes, gpu_mem_total_bytes;
  std::optional<int> gpu_util, gpu_temp_c, gpu_clk_sm;
  std::optional<uint64_t> gpu_power_mw;
  std::optional<int64_t> gpu_sample_age_ns;
};

struct StackDef {
  std::string sid;
  uint32_t id = 0;
  std::vector<std::string> frames;  // innermost first
};

struct ScopePath {
  std::string sid;
  uint32_t id = 0;
  uint32_t parent = 0;  // 0 = root
  std::string name;
  int depth = 0;
};

struct ScopeBegin {
  std::string sid;
  uint64_t id = 0;
  uint32_t path = 0;
  int64_t tid = 0;
  int64_t ts_ns = 0;
  std::string name;
  std::string tag;
  int depth = 0;
};

struct ScopeEnd {
  std::string sid;
  uint64_t id = 0;
  uint32_t path = 0;
  int64_t tid = 0;
  int64_t ts_ns = 0;
};

// One NVML reading of one GPU. Absent optionals were not readable on that GPU.
struct GpuSample {
  std::string sid;
  int64_t ts_ns = 0;
  uint32_t gpu = 0;
  std::optional<int> util_gpu, util_mem;
  std::optional<uint64_t> mem_used_bytes, mem_total_bytes;
  std::optional<int> temp_c;
  std::optional<uint64_t> power_mw, power_limit_mw, energy_mj;
  std::optional<int> clk_sm, clk_mem, clk_gfx;
  std::optional<uint64_t> pcie_rx_kbps, pcie_tx_kbps;
  std::optional<uint64_t> throttle;
  std::vector<std::string> throttle_reasons;
};

struct HostSample {
  std::string sid;
  int64_t ts_ns = 0;
  std::optional<double> cpu_pct, proc_cpu_pct;
  std::optional<uint64_t> ram_used_bytes, ram_total_bytes, proc_rss_bytes;
};

// SASS metrics of one instruction, summed over the instrumented launches of its function.
struct SassMetric {
  std::string sid;
  std::string func;
  uint64_t pc = 0;
  uint64_t launches = 0;
  uint64_t inst_executed = 0;
  uint64_t thread_inst_executed = 0;
  uint64_t sectors_global = 0;
  uint64_t sectors_global_ideal = 0;
  std::string sass;
  std::string source;
};

struct PcSample {
  std::string sid;
  std::string func;
  uint64_t pc = 0;
  std::string stall;
  uint64_t count = 0;
  std::string sass;
  std::string source;
  // Sampled on a launch SASS metrics patched too (PcSamplingWithSass: the kernel's first launch,
  // kept only when the kernel has no clean samples): the stalls lean toward wait.
  bool patched = false;
};

struct RangeCounters {
  std::string sid;
  std::string range;  // the scope's name
  uint32_t path = 0;
  std::map<std::string, double> metrics;
  std::string
      kernel;  // per-kernel ranges (GPUFL_RANGE_PER_KERNEL): the one launch measured; else empty
};

// One operation timed by the harness (gpufl.bench, gpufl::bench): warm-up, then `reps` repetitions
// timed with CUDA events on the stream the work runs on. Times are per operation (graph replay: a
// repetition replays ops_per_rep operations and its time is divided by that). Rates are at the
// median; a peak of 0 is unknown.
struct BenchmarkResult {
  std::string sid;
  std::string name;
  std::string
      shape;  // the size it ran at, e.g. "4096x4096x4096" (a kernel has a speed only at a size)
  std::string dtype;  // e.g. "bf16"
  uint32_t device = 0;
  int64_t ts_ns = 0;  // when the timed repetitions ended (monotonic)
  std::string
      method;  // "events", "graph" (CUDA graph replay) or "host" (host clock around a synchronize)
  uint64_t reps = 0;  // timed repetitions
  uint64_t warmup_reps = 0;
  uint64_t ops_per_rep = 1;
  bool flush_l2 = false;  // L2 flushed (or inputs rotated) before every repetition
  int64_t median_ns = 0, min_ns = 0, p10_ns = 0, p90_ns = 0, max_ns = 0, mean_ns = 0;
  double flops = 0, bytes = 0;            // per operation
  double tflops = 0, gbps = 0;            // flops / median, bytes / median
  double peak_tflops = 0, peak_gbps = 0;  // the device's, that the rates are compared against
  std::optional<int> clk_sm_min_mhz,
      clk_sm_max_mhz;                   // SM clocks seen during the repetitions (NVML)
  std::optional<int> clk_sm_limit_mhz;  // the SM clock the device can reach (NVML max clock)
  std::vector<std::string> warnings;    // why not to trust the numbers, each with its number
};

// One violation a record check found (core/trace_checks.hpp), as the health record keeps it: the
// first few of each kind. What reference_ns is depends on the kind (docs/log-format.md, "health").
struct HealthExample {
  std::string kind;     // "zero_time", "reversed", "before_launch", ... (traceViolationName)
  std::string record;   // "kernel", "copy" or "clock"
  int64_t seen_ns = 0;  // when the writer found it
  uint64_t correlation_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint64_t bytes = 0;
  int64_t tid = 0;  // the launching thread (0: unknown)
  int64_t reference_ns = 0;
  int64_t offset_ns = 0;  // clock kinds: the new GPU-to-host offset
  bool operator==(const HealthExample&) const = default;
};

// gpufl's own health, every health_period_s and once more before session_end: what gpufl cost the
// program (CPU by thread, memory), how much it wrote and lost, what its checks of the records
// found, the GPU-to-host clock, the CUPTI it runs on with what is known wrong in it, and what it
// gave up to stay within the user's limits. Counts are since the session began; rates over the
// period.
struct Health {
  std::string sid;
  int64_t ts_ns = 0;
  int64_t period_ns = 0;  // since the previous health record (or the session's start)
  bool final = false;     // the last one, written just before session_end
  std::map<std::string, uint64_t> cpu_ns;   // gpufl's threads' CPU time by role: writer, cupti, ...
  double cpu_pct = 0;                       // gpufl's threads over the period, in % of one core
  uint64_t rss_bytes = 0;                   // the process's resident memory now
  int64_t rss_growth_bytes = 0;             // since the session began (the program's too)
  uint64_t buffer_bytes = 0;                // what gpufl's own buffers hold now
  uint64_t activity_buffers = 0;            // CUPTI activity buffers allocated now
  uint64_t activity_buffers_pending = 0;    // completed, waiting for the writer
  uint64_t activity_buffers_peak = 0;       // the most allocated at once
  uint64_t records = 0;                     // records written to the log
  double records_per_s = 0;                 // over the period
  uint64_t kernels = 0;                     // kernel records written
  std::map<std::string, uint64_t> dropped;  // as session_end's, so far
  uint64_t checked = 0;                     // records the checks saw
  std::map<std::string, uint64_t> violations;          // by kind
  std::map<std::string, int64_t> violations_since_ns;  // when each kind was first seen
  std::vector<HealthExample> examples;                 // the first few of each kind
  std::string clock_mode;                  // "callback", "offset", "unwatched"; "" without CUPTI
  std::optional<int64_t> clock_offset_ns;  // host - CUPTI, the latest sample
  std::optional<int64_t> clock_drift_ns;   // the offset's change since the first sample
  std::optional<int64_t> clock_correction_ns;  // how far gpufl's correction moved since then
  uint64_t cupti_version = 0;                  // cuptiGetVersion
  std::vector<std::string> cupti_issues;       // what is known wrong in this CUPTI
  std::vector<std::string> step_down;          // what gpufl gave up to stay within the limits
};

}  // namespace gpufl
