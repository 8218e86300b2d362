// Plain CUPTI tracing: kernels, copies and sets from the activity API, plus launch callbacks that
// attribute each kernel to the launching thread's user scope (and stack). Owns the process's one
// CUPTI subscriber and forwards context, module and launch hooks to the deep engines. Optionally
// follows NVTX push/pop ranges as scopes (enableNvtx, nvtx_ranges.hpp).
//
// Threads: start()/stop() on the thread that calls gpufl::init/shutdown; launch and NVTX callbacks
// on application threads (lock-free, allocation-free: the flight recorder's LaunchTable); buffer
// callbacks on CUPTI's thread (hand-off only); drain() on the session's writer thread, where
// records are decoded, joined and turned into events.
#pragma once

#include <cupti_activity.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "core/flight_recorder.hpp"
#include "core/scope_stack.hpp"
#include "core/stack_trace.hpp"
#include "core/trace_checks.hpp"
#include "cuda/activity_buffers.hpp"
#include "cuda/activity_decode.hpp"
#include "cuda/capture_tracker.hpp"
#include "cuda/carveout_requests.hpp"
#include "cuda/deep_engine.hpp"
#include "cuda/engine_time.hpp"
#include "cuda/kernel_catalog.hpp"

namespace gpufl::cuda {

struct TracerStats {
  uint64_t kernels = 0, memcpys = 0, memsets = 0;
  uint64_t records_dropped_by_cupti = 0;  // cuptiActivityGetNumDroppedRecords
  uint64_t buffer_refusals = 0;           // CUPTI asked for a buffer while all were in use
  uint64_t buffers_allocated = 0;
  uint64_t unattributed = 0;  // kernels whose launch info was gone (slot reused) or never seen
  uint64_t untimed_kernels =
      0;                       // kernel records CUPTI could not time (start = end = 0): not logged
  uint64_t invalid_times = 0;  // copies without times, kernels and copies ending before they
                               // start: not logged (the checks count each kind)
  uint64_t callback_ns = 0;    // time spent in our launch callbacks (sampled estimate)
  uint64_t tool_kernels = 0, tool_kernel_ns = 0;  // kernels CUPTI itself launched (left out)
  std::string engine_time;  // wall time per deep-engine hook (EngineTime::summary), "" without
  // What the health record reports: the checks of the records, the activity buffers held now
  // (at CUPTI, waiting for the writer, idle), the most held at once, and CUPTI's buffer thread.
  core::TraceCheckState checks;
  uint64_t buffers_held = 0, buffers_pending = 0, buffers_peak = 0, buffer_bytes = 0;
  int64_t cupti_tid = 0;   // the thread CUPTI hands completed buffers on (0: none yet)
  int session_number = 0;  // this tracer's start among the process's (1: the first)
  core::ClockMode clock_mode = core::ClockMode::Callback;
};

class CuptiTracer {
 public:
  CuptiTracer();
  ~CuptiTracer();

  // Subscribes, puts CUPTI on the session clock, enables activity kinds and launch callbacks,
  // starts engines. False with *reason when tracing cannot run (no GPU/driver, CUPTI taken by
  // another tool, ...).
  bool start(const EngineContext& context, bool stack_traces,
             std::vector<std::unique_ptr<DeepEngine>> engines, std::string* reason);
  // Flushes CUPTI, stops the engines, disables everything and unsubscribes. Idempotent.
  void stop();

  // After start(): turns NVTX push/pop ranges into scopes. Enables CUPTI's NVTX callbacks and
  // points NVTX_INJECTION64_PATH at this libcupti when unset (nvtx_injection.hpp); `injected`:
  // under gpufl trace. Returns whether the callbacks are on, with the session note's status and
  // reason.
  bool enableNvtx(bool injected, std::string* status, std::string* reason);

  void setDevices(const std::vector<DeviceInfo>& devices);
  void setKernelDetails(bool on) { catalog_.setOccupancyEnabled(on); }
  // Before start(): also record host waits (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), with a note.
  void setSyncEvents(bool on) { sync_events_ = on; }
  // Before start(): also record memory allocations and releases (CUPTI_ACTIVITY_KIND_MEMORY2).
  void setMemoryEvents(bool on) { memory_events_ = on; }
  // Before start(): the session's flight recorder (launches in flight, waits, incident triggers)
  // and how to wake its writer after a trigger. Without one the tracer keeps a recorder of its own
  // (tests), whose incidents nobody writes.
  void setFlightRecorder(core::FlightRecorder* flight, std::function<void()> wake);
  // [writer thread] What only the tracer knows about an incident: CUPTI's stream ids of the
  // launches in flight, and the last kernels of each stream.
  void enrichIncident(Incident& incident);

  // Before start(): the limits of the record checks (trace_checks.hpp); the session's start and the
  // coarse clock's resolution. setDevices() later bounds copies by the devices' memory bandwidth.
  void setCheckLimits(const core::TraceCheckLimits& limits);
  // [any thread] Steps the deep engines down (the user's cost limits, health_reporter.hpp): from
  // now on they see no new launch and no new scope, so nothing more is instrumented; what they
  // collected is still drained, and they are stopped at shutdown as before. False without engines.
  bool pauseDeepEngines();

  // [writer thread] Decodes completed buffers into events; also drains the engines and new stacks.
  void drain(EventVisitor& out, const std::string& sid);
  // [writer thread] Asks CUPTI to hand over partially filled buffers (forced at shutdown).
  void flush(bool forced);

  TracerStats stats() const;

  // [cupti callbacks] Entry points used by the C callbacks; public only for them.
  enum class ApiKind {
    KernelLaunch,
    GraphLaunch,
    Copy,
    Sync,
    StreamWait,
    Alloc,
    Free,
    FuncAttribute
  };
  void onApi(const void* callback_data, bool enter, ApiKind kind,
             CUpti_CallbackDomain domain = CUPTI_CB_DOMAIN_RUNTIME_API, CUpti_CallbackId cbid = 0);
  void onCapture(const void* callback_data, bool begin, bool enter);  // [app thread]
  // [writer thread, tests] The carveout percent a launch asked for through a function attribute
  // (-1: none seen).
  int requestedCarveout(uint32_t correlation_id) const {
    return carveouts_.forLaunch(correlation_id);
  }
  // [app thread] A driver call inside a traced runtime call: only carveouts are taken from it.
  void onNestedDriverCall(const void* callback_data, bool enter, ApiKind kind,
                          CUpti_CallbackId cbid, uint32_t runtime_corr);
  void onNvtx(uint32_t cbid, const void* nvtx_data);
  void onResource(int cbid, const void* resource_data);
  void onBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  void onBufferCompleted(void* context, uint32_t stream, uint8_t* buffer, size_t valid_bytes);

  bool hasDeepEngines() const { return !engines_.empty(); }
  // [writer thread] The launch time of the oldest launch in flight that no synchronize proved
  // finished (INT64_MAX when none; a scan of the launch table, once per forced flush).
  int64_t oldestUnfinishedLaunchNs() const { return flight_->oldestUnfinishedLaunchNs(); }

 private:
  void enableOptionalKind(const EngineContext& context, const char* feature,
                          CUpti_ActivityKind kind, std::span<const CUpti_CallbackId> runtime,
                          std::span<const CUpti_CallbackId> driver, const char* what);  // [start]
  // [start, writer thread] Samples CUPTI's clock against the host's for the checks, which say what
  // to add to activity timestamps (clock_offset_ns_).
  void sampleClockOffset();
  void setDeviceBufferAttributes(const EngineContext& context);  // [start] test knobs
  bool checked(bool is_copy, uint64_t correlation_id, int64_t start_ns, int64_t end_ns,
               uint64_t bytes, int64_t launch_ns, uint32_t tid, int64_t now_ns);
  // [writer thread] True (and counted) when a deep engine's CUPTI API launched the kernel itself.
  bool isToolKernel(const DecodedKernel& kernel);
  void decodeBuffer(const CompletedBuffer& buffer, EventVisitor& out, const std::string& sid);
  core::LaunchTable& launches() { return flight_->launches(); }
  // [app thread] A traced call returned `code` != 0: a fatal CUDA error or an allocation out of
  // memory becomes an incident.
  void onCallFailed(const void* callback_data, ApiKind kind, CUpti_CallbackDomain domain,
                    CUpti_CallbackId cbid, int code);
  void rememberLastKernel(const KernelEvent& kernel);  // [writer thread]

  ActivityBufferPool pool_;
  core::FlightRecorder* flight_ = nullptr;
  std::unique_ptr<core::FlightRecorder> own_flight_;  // when no session gave one
  std::function<void()> wake_writer_;
  CarveoutRequests carveouts_;  // cudaFuncSetAttribute's carveout, carried to launches
  CaptureTracker capture_;      // open stream captures, for the deep engines
  LaunchGate launch_gate_;  // keeps instrumented launches apart from other threads' (deep engines)
  KernelCatalog catalog_;
  StackTable stacks_;
  std::vector<std::unique_ptr<DeepEngine>> engines_;
  EngineTime engine_time_;                 // every call into engines_, by hook
  std::vector<CUpti_ActivityKind> kinds_;  // activity kinds enabled, but for kernel_switch_'s
  // Kernels' activity kind when an engine needs serialized kernels (SASS): KERNEL while
  // instrumenting, CONCURRENT_KERNEL otherwise.
  KernelActivitySwitch kernel_switch_;
  bool kernel_switched_ = false;  // kernel_switch_ owns the kernel kind (not in kinds_)
  int64_t started_ns_ = 0;
  std::function<void(const std::string&, const std::string&, const std::string&)> note_;
  core::ScopeObserver scope_observer_;  // forwards user scopes to the engines (range profiler)
  bool stack_traces_ = false;
  bool sync_events_ = false;
  bool memory_events_ = false;
  uint64_t tool_kernels_ = 0, tool_kernel_ns_ = 0;  // writer thread only
  bool offset_clock_ = false;                       // GPUFL_TIMESTAMPS=offset
  int64_t clock_offset_ns_ = 0;  // added to activity timestamps (0 with the timestamp callback)
  int64_t last_clock_sample_ns_ = 0;  // writer thread only
  core::TraceCheckLimits check_limits_;
  core::TraceChecker checks_;   // writer thread only
  uint64_t invalid_times_ = 0;  // writer thread only
  std::atomic<int64_t> cupti_tid_{0};
  std::atomic<bool> deep_paused_{false};
  int session_number_ = 0;
  bool started_ = false;
  void* subscriber_ = nullptr;
  std::atomic<uint64_t> dropped_{0};
  uint64_t kernels_ = 0, memcpys_ = 0, memsets_ = 0, unattributed_ = 0;  // writer thread only
  uint64_t untimed_kernels_ = 0;                                         // writer thread only
  // The last kernels of each stream (writer thread only): an incident's "last completed".
  std::map<uint32_t, std::vector<LastKernel>> last_kernels_;
};

}  // namespace gpufl::cuda
