#include "cuda/cupti_tracer.hpp"

#include <cupti.h>

#include <algorithm>
#include <bitset>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "core/clock.hpp"
#include "core/device_peaks.hpp"
#include "core/scope_stack.hpp"
#include "core/thread_state.hpp"
#include "cuda/activity_decode.hpp"
#include "cuda/api_params.hpp"
#include "cuda/cupti_api.hpp"
#include "cuda/cupti_status.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/nvtx_decode.hpp"
#include "cuda/nvtx_injection.hpp"
#include "cuda/nvtx_ranges.hpp"
#include "cuda/trace_config.hpp"

namespace gpufl::cuda {
namespace {

using ApiKind = CuptiTracer::ApiKind;

// CUPTI's C callbacks reach the one live tracer through this pointer (CUPTI allows one subscriber
// anyway).
std::atomic<CuptiTracer*> g_tracer{nullptr};
// Tracers started in this process: from the second on, CUPTI's timestamp callback is registered
// again (cupti_known_issues.hpp).
std::atomic<int> g_tracer_starts{0};

// A runtime call submits its work through a driver call inside it; the activity record carries the
// runtime call's correlation id, so the nested driver callback is ignored.
thread_local int t_runtime_launch_depth = 0;
// The correlation id of the runtime launch this thread is inside of: its nested driver launch
// names the CUfunction, the key a carveout set through the driver was recorded under.
thread_local uint32_t t_runtime_launch_corr = 0;
// Whether the deep engines saw this thread's launch in progress at its entry: its exit goes to them
// only then (they may have been paused in between, pauseDeepEngines).
thread_local bool t_engines_saw_launch = false;

// What a traced callback is. Copies and sets are the calls apiRole does not name (the only other
// callbacks the tracer enables).
ApiKind kindOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  switch (apiRole(domain, cbid)) {
    case ApiRole::KernelLaunch:
      return ApiKind::KernelLaunch;
    case ApiRole::GraphLaunch:
      return ApiKind::GraphLaunch;
    case ApiRole::Sync:
      return ApiKind::Sync;
    case ApiRole::StreamWait:
      return ApiKind::StreamWait;
    case ApiRole::Alloc:
      return ApiKind::Alloc;
    case ApiRole::Free:
      return ApiKind::Free;
    case ApiRole::FuncAttribute:
      return ApiKind::FuncAttribute;
    case ApiRole::Copy:
    case ApiRole::Other:
      break;
  }
  return ApiKind::Copy;
}

// Which traced callbacks begin or end a stream capture, indexed like CopyCbids.
struct CaptureCbids {
  std::bitset<1024> begin[2], end[2];
  CaptureCbids() {
    for (auto cbid : kRuntimeCaptureBeginCbids) begin[0].set(cbid);
    for (auto cbid : kRuntimeCaptureEndCbids) end[0].set(cbid);
    for (auto cbid : kDriverCaptureBeginCbids) begin[1].set(cbid);
    for (auto cbid : kDriverCaptureEndCbids) end[1].set(cbid);
  }
  // +1 begin, -1 end, 0 neither.
  int kind(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const {
    if (cbid >= 1024) return 0;
    const int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
    return begin[d].test(cbid) ? 1 : end[d].test(cbid) ? -1 : 0;
  }
};
const CaptureCbids kCaptureCbids;

void CUPTIAPI onCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* data) {
  auto* tracer = static_cast<CuptiTracer*>(userdata);
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    tracer->onNvtx(cbid, data);
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    tracer->onResource(static_cast<int>(cbid), data);
    return;
  }
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  bool enter = cb->callbackSite == CUPTI_API_ENTER;
  if (const int capture = kCaptureCbids.kind(domain, cbid); capture != 0) {
    // A runtime capture call reaches the driver's inside it: only the outermost one counts.
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      if (enter) ++t_runtime_launch_depth, tracer->onCapture(data, capture > 0, true);
      if (!enter) tracer->onCapture(data, capture > 0, false), --t_runtime_launch_depth;
    } else if (t_runtime_launch_depth == 0) {
      tracer->onCapture(data, capture > 0, enter);
    }
    return;
  }
  const ApiKind kind = kindOf(domain, cbid);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (enter) ++t_runtime_launch_depth;
    if (kind == ApiKind::KernelLaunch && enter) t_runtime_launch_corr = cb->correlationId;
    tracer->onApi(data, enter, kind, domain, cbid);
    if (!enter) --t_runtime_launch_depth;
  } else if (t_runtime_launch_depth == 0) {
    tracer->onApi(data, enter, kind, domain, cbid);
  } else if (kind == ApiKind::FuncAttribute || kind == ApiKind::KernelLaunch) {
    tracer->onNestedDriverCall(data, enter, kind, cbid, t_runtime_launch_corr);
  }
}

bool waitsForEvent(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  return domain == CUPTI_CB_DOMAIN_RUNTIME_API
             ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020
             : cbid == CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize;
}

uint64_t CUPTIAPI sessionClock() {
  return static_cast<uint64_t>(core::monotonicNs());
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  if (CuptiTracer* t = g_tracer.load(std::memory_order_acquire)) {
    t->onBufferRequested(buffer, size, max_records);
  } else {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
  }
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t,
                              size_t valid) {
  if (CuptiTracer* t = g_tracer.load(std::memory_order_acquire))
    t->onBufferCompleted(ctx, stream, buffer, valid);
}

}  // namespace

CuptiTracer::CuptiTracer()
    : pool_(kActivityBufferBytes, kMaxActivityBuffers),
      kernel_switch_({[](CUpti_ActivityKind k) { return cupti::cuptiActivityEnable(k); },
                      [](CUpti_ActivityKind k) { return cupti::cuptiActivityDisable(k); }}) {
  setFlightRecorder(nullptr, nullptr);
}

void CuptiTracer::setFlightRecorder(core::FlightRecorder* flight, std::function<void()> wake) {
  if (flight == nullptr) {
    if (!own_flight_) own_flight_ = std::make_unique<core::FlightRecorder>();
    flight = own_flight_.get();
  }
  flight_ = flight;
  wake_writer_ = std::move(wake);
}

CuptiTracer::~CuptiTracer() {
  stop();
}

bool CuptiTracer::start(const EngineContext& context, bool stack_traces,
                        std::vector<std::unique_ptr<DeepEngine>> engines, std::string* reason) {
  if (started_) return true;
  if (std::string why; !cuptiLibrary().has(CuptiFeature::Tracing, &why)) {
    *reason = "CUPTI unavailable: " + why;
    return false;
  }
  CuptiTracer* expected = nullptr;
  if (!g_tracer.compare_exchange_strong(expected, this)) {
    *reason = "another gpufl tracer is already running in this process";
    return false;
  }
  stack_traces_ = stack_traces;
  session_number_ = g_tracer_starts.fetch_add(1, std::memory_order_relaxed) + 1;
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CuptiCall c{"cuptiSubscribe", cupti::cuptiSubscribe(&subscriber, onCallback, this)};
      !c.ok()) {
    // CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: Nsight or another profiler holds CUPTI.
    *reason = c.describe();
    g_tracer.store(nullptr);
    return false;
  }
  subscriber_ = subscriber;
  auto fail = [&](const CuptiCall& c) {
    *reason = c.describe();
    stop();
    return false;
  };
  // Timestamps on the session clock: by default CUPTI calls sessionClock for each one (registered
  // before any activity kind is enabled: CUPTI's rule). GPUFL_TIMESTAMPS=offset instead keeps
  // CUPTI's own clock and adds (monotonic - cuptiGetTimestamp), sampled at each drain, on the
  // writer thread: no call into gpufl per timestamp (bench/overhead.py compares the two).
  const char* ts_mode = std::getenv("GPUFL_TIMESTAMPS");
  offset_clock_ = ts_mode != nullptr && std::string_view(ts_mode) == "offset" &&
                  cuptiLibrary().cuptiGetTimestamp != nullptr;
  checks_ = core::TraceChecker(check_limits_,
                               offset_clock_ ? core::ClockMode::Offset : core::ClockMode::Callback);
  if (offset_clock_) {
    sampleClockOffset();
  } else if (CuptiCall c{"cuptiActivityRegisterTimestampCallback",
                         cupti::cuptiActivityRegisterTimestampCallback(sessionClock)};
             !c.ok()) {
    return fail(c);
  }
  if (CuptiCall c{"cuptiActivityRegisterCallbacks",
                  cupti::cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted)};
      !c.ok())
    return fail(c);
  setDeviceBufferAttributes(context);
  // Engines first: SASS metrics need kernels traced serialized (KIND_KERNEL) rather than
  // concurrently.
  EngineContext engine_context = context;
  engine_context.capture = &capture_;
  engine_context.gate = &launch_gate_;
  engine_context.kernel_activity = &kernel_switch_;
  note_ = context.note;
  started_ns_ = core::monotonicNs();
  launch_gate_.onGiveUp([note = context.note](const std::string& why) {
    if (note) note("launch_gate", "degraded", why);
  });
  for (auto& engine : engines) {
    EngineTime::Span span(engine_time_, EngineHook::Start);
    if (engine->start(engine_context)) engines_.push_back(std::move(engine));
  }
  bool serialize = false;
  for (auto& engine : engines_) serialize |= engine->needsSerializedKernelActivity();
  kinds_.assign(std::begin(kTraceActivityKinds), std::end(kTraceActivityKinds));
  if (serialize) {
    // The kernel kind is the switch's: KERNEL while SASS instrumentation may run, else
    // CONCURRENT_KERNEL (GPUFL_SASS_SERIALIZE=always: KERNEL throughout).
    std::erase(kinds_, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    const char* mode = std::getenv("GPUFL_SASS_SERIALIZE");
    const bool always = mode != nullptr && std::string_view(mode) == "always";
    if (!kernel_switch_.start(always, reason)) {
      stop();
      return false;
    }
    kernel_switched_ = true;
    if (context.note)
      context.note(
          "kernel_activity", "degraded",
          std::string(always ? "kernels traced serialized (CUPTI_ACTIVITY_KIND_KERNEL) for the "
                               "whole run (GPUFL_SASS_SERIALIZE=always)"
                             : "kernels traced serialized (CUPTI_ACTIVITY_KIND_KERNEL) while SASS "
                               "instrumentation runs, concurrently otherwise") +
              ": SASS metrics read 0 under concurrent kernel tracing on this CUPTI; concurrent "
              "streams do not overlap while serialized, and graph kernels launched then may "
              "have no times, so results that depend on timing (atomic reductions in a "
              "different order) may differ from a plain run: compare with deterministic ops on "
              "(XLA_FLAGS=--xla_gpu_deterministic_ops=true, "
              "torch.use_deterministic_algorithms(True))");
  }
  for (CUpti_ActivityKind kind : kinds_) {
    if (CuptiCall c{"cuptiActivityEnable", cupti::cuptiActivityEnable(kind)}; !c.ok())
      return fail(c);
  }
  forEachTracedCallback([&](CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    cupti::cuptiEnableCallback(1, subscriber, domain, cbid);
  });
  // The flight recorder's calls: synchronizes (host waits, what finished), allocations (out of
  // memory), releases and stream waits (errors they return), function attributes (carveouts).
  // None is on the launch path; the bare-CUPTI floor does not enable them.
  forEachIncidentCallback([&](CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    cupti::cuptiEnableCallback(1, subscriber, domain, cbid);
  });
  cupti::cuptiActivityFlushPeriod(500);  // CUPTI hands over partly filled buffers twice a second
  started_ = true;
  if (sync_events_) {
    enableOptionalKind(
        context, "sync_events", kSyncActivityKind, kRuntimeSyncCbids, kDriverSyncCbids,
        "host waits (stream, event, device synchronization; stream waits on events)");
  }
  if (memory_events_) {
    enableOptionalKind(context, "memory_events", kMemoryActivityKind, kRuntimeMemoryCbids,
                       kDriverMemoryCbids,
                       "allocations and releases of device, pinned and managed memory");
  }
  bool wants_scopes = false;
  for (auto& engine : engines_) wants_scopes |= engine->wantsScopes();
  if (wants_scopes) {
    scope_observer_.begin = [](void* self, uint32_t path, std::string_view name) {
      auto* tracer = static_cast<CuptiTracer*>(self);
      // Paused: no new range begins; ends still reach the engines, which close only what they
      // opened.
      if (tracer->deep_paused_.load(std::memory_order_relaxed)) return;
      std::string terminated(name);  // engines take C strings; only deep modes pay for the copy
      EngineTime::Span span(tracer->engine_time_, EngineHook::Scope);
      for (auto& engine : tracer->engines_) engine->onScopeBegin(path, terminated.c_str());
    };
    scope_observer_.end = [](void* self, uint32_t path) {
      auto* tracer = static_cast<CuptiTracer*>(self);
      EngineTime::Span span(tracer->engine_time_, EngineHook::Scope);
      for (auto& engine : tracer->engines_) engine->onScopeEnd(path);
    };
    scope_observer_.self = this;
    core::setScopeObserver(&scope_observer_);
  }
  if (!engines_.empty()) {
    for (auto cbids : {std::span<const CUpti_CallbackId>(kRuntimeCaptureBeginCbids),
                       std::span<const CUpti_CallbackId>(kRuntimeCaptureEndCbids)})
      for (auto cbid : cbids)
        cupti::cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
    for (auto cbids : {std::span<const CUpti_CallbackId>(kDriverCaptureBeginCbids),
                       std::span<const CUpti_CallbackId>(kDriverCaptureEndCbids)})
      for (auto cbid : cbids)
        cupti::cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
    cupti::cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    cupti::cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    cupti::cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_MODULE_LOADED);
  }
  return true;
}

// A test of the record checks (docs/trace-health.md): CUPTI's device buffers for kernel timestamps
// made small or few, the condition under which a peer saw invalid timestamps sooner. Set before the
// activity kinds are enabled; under `gpufl trace` that is inside cuInit, before any context, as
// CUPTI asks. Each setting that took is said in a note.
void CuptiTracer::setDeviceBufferAttributes(const EngineContext& context) {
  if (cuptiLibrary().cuptiActivitySetAttribute == nullptr) return;
  const struct {
    const char* env;
    CUpti_ActivityAttribute attribute;
    const char* what;
  } settings[] = {
      {"GPUFL_CUPTI_DEVICE_BUFFER_BYTES", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE,
       "device buffer size (bytes)"},
      {"GPUFL_CUPTI_DEVICE_BUFFERS", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT,
       "device buffer pool limit"},
  };
  for (const auto& s : settings) {
    const char* text = std::getenv(s.env);
    if (text == nullptr || *text == '\0') continue;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || v == 0) continue;
    size_t value = static_cast<size_t>(v), size = sizeof value;
    CuptiCall c{"cuptiActivitySetAttribute",
                cupti::cuptiActivitySetAttribute(s.attribute, &size, &value)};
    if (context.note)
      context.note("cupti_attributes", "degraded",
                   std::string("CUPTI ") + s.what + " set to " + text + " by " + s.env +
                       (c.ok() ? " (a test condition: expect invalid or dropped records)"
                               : ": " + c.describe()));
  }
}

// An activity kind only some sessions ask for, with the API callbacks that attribute its records to
// scopes. A failure turns the feature off with a note; tracing goes on.
void CuptiTracer::enableOptionalKind(const EngineContext& context, const char* feature,
                                     CUpti_ActivityKind kind,
                                     std::span<const CUpti_CallbackId> runtime,
                                     std::span<const CUpti_CallbackId> driver, const char* what) {
  auto note = [&](const char* status, const std::string& reason) {
    if (context.note) context.note(feature, status, reason);
  };
  if (CuptiCall c{"cuptiActivityEnable", cupti::cuptiActivityEnable(kind)}; !c.ok()) {
    note("off", c.describe());
    return;
  }
  kinds_.push_back(kind);
  auto subscriber = static_cast<CUpti_SubscriberHandle>(subscriber_);
  for (auto cbid : runtime)
    cupti::cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
  for (auto cbid : driver)
    cupti::cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  note("on", what);
}

void CuptiTracer::stop() {
  if (subscriber_ == nullptr) return;
  if (started_) {
    core::setScopeObserver(nullptr);
    {
      EngineTime::Span span(engine_time_, EngineHook::Stop);
      // Launches of other threads wait while the engines disable what they enabled.
      std::optional<LaunchGate::Exclusive> alone;
      if (!engines_.empty()) alone.emplace(launch_gate_);
      for (auto& engine : engines_) engine->stop();
    }
    cupti::cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kinds_) cupti::cuptiActivityDisable(kind);
    if (kernel_switched_) {
      const int64_t now = core::monotonicNs();
      if (std::string said = kernel_switch_.summary(now, now - started_ns_); !said.empty() && note_)
        note_("kernel_activity", "degraded", said);
      kernel_switch_.stop();
      kernel_switched_ = false;
    }
    // Records of work still in flight when tracing was disabled come back with this last flush.
    cupti::cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  // From here on the C callbacks find no tracer: a buffer CUPTI might still return is not touched.
  g_tracer.store(nullptr, std::memory_order_release);
  cupti::cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
  subscriber_ = nullptr;
  started_ = false;
}

// A carveout may reach gpufl as the runtime's cudaFuncSetAttribute (keyed by the host stub) or only
// as the driver's cuFuncSetAttribute inside it (keyed by the CUfunction); a launch is looked up by
// both: the runtime's stub at its enter (onApi), the CUfunction of its nested driver launch here.
void CuptiTracer::onNestedDriverCall(const void* callback_data, bool enter, ApiKind kind,
                                     CUpti_CallbackId cbid, uint32_t runtime_corr) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(callback_data);
  if (kind == ApiKind::FuncAttribute && !enter) {
    if (cb->functionReturnValue != nullptr &&
        *static_cast<const int*>(cb->functionReturnValue) != 0)
      return;
    if (auto request = carveoutRequest(CUPTI_CB_DOMAIN_DRIVER_API, cbid, cb->functionParams))
      carveouts_.set(request->function, request->percent);
  } else if (kind == ApiKind::KernelLaunch && enter && carveouts_.any() &&
             carveouts_.forLaunch(runtime_corr) < 0) {
    carveouts_.noteLaunch(launchFunction(CUPTI_CB_DOMAIN_DRIVER_API, cbid, cb->functionParams),
                          runtime_corr);
  }
}

void CuptiTracer::flush(bool forced) {
  if (started_) cupti::cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void CuptiTracer::setDevices(const std::vector<DeviceInfo>& devices) {
  catalog_.setDevices(devices);
  // A copy moves each byte through device memory at least once: faster than twice the fastest
  // device's memory bandwidth (margin for the peak table) it cannot be. Unknown devices keep the
  // default bound.
  double gbps = 0;
  for (const DeviceInfo& d : devices)
    if (auto peaks = core::devicePeaks(d.name)) gbps = std::max(gbps, peaks->gbps);
  if (gbps > 0) {
    check_limits_.max_copy_gbps = 2 * gbps;
    checks_.setLimits(check_limits_);
  }
}

void CuptiTracer::setCheckLimits(const core::TraceCheckLimits& limits) {
  check_limits_ = limits;
  checks_.setLimits(limits);
}

bool CuptiTracer::pauseDeepEngines() {
  if (engines_.empty()) return false;
  deep_paused_.store(true, std::memory_order_relaxed);
  return true;
}

void CuptiTracer::onApi(const void* callback_data, bool enter, ApiKind kind,
                        CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(callback_data);
  const uint32_t corr = cb->correlationId;
  // cudaError_t and CUresult alike: 0 is success.
  const int code = !enter && cb->functionReturnValue != nullptr
                       ? *static_cast<const int*>(cb->functionReturnValue)
                       : 0;
  if (kind != ApiKind::KernelLaunch && kind != ApiKind::GraphLaunch) {
    if (enter) {
      const uint32_t scope = core::currentScopePath();
      core::LaunchSlot slot{corr, core::LaunchKind::Api, {scope, 0, 0}};
      if (kind == ApiKind::Copy) {
        slot.kind = core::LaunchKind::Copy;
        slot.tid = static_cast<uint32_t>(core::currentTid());
        slot.launch_ns = core::coarseMonotonicNs();
        slot.context = reinterpret_cast<uintptr_t>(cb->context);
        slot.name = cb->functionName;
      }
      launches().put(slot);
      // A blocking copy waits for the GPU like a synchronize (an asynchronous one returns at once).
      if (kind == ApiKind::Copy || kind == ApiKind::Sync)
        flight_->waitBegins(cb->functionName, streamOf(domain, cbid, cb->functionParams), scope,
                            core::coarseMonotonicNs());
      return;
    }
    if (kind == ApiKind::Copy || kind == ApiKind::Sync) flight_->waitEnds();
    if (code != 0) {
      if (kind == ApiKind::Copy) launches().complete(corr);  // no record will come
      onCallFailed(callback_data, kind, domain, cbid, code);
    } else if (kind == ApiKind::Sync && !waitsForEvent(domain, cbid)) {
      // What came before on the stream (or the whole context) has finished without error. An
      // event's stream is not known here: event waits prove nothing to the recorder.
      flight_->synchronized(reinterpret_cast<uintptr_t>(cb->context),
                            streamOf(domain, cbid, cb->functionParams),
                            synchronizesContext(domain, cbid), corr);
    } else if (kind == ApiKind::FuncAttribute) {
      if (auto request = carveoutRequest(domain, cbid, cb->functionParams))
        carveouts_.set(request->function, request->percent);
    }
    return;
  }
  const bool is_graph = kind == ApiKind::GraphLaunch;
  if (enter) {
    core::LaunchSlot slot;
    slot.correlation_id = corr;
    slot.kind = is_graph ? core::LaunchKind::Graph : core::LaunchKind::Kernel;
    slot.info = {core::currentScopePath(), stack_traces_ ? stacks_.capture(3) : 0u,
                 is_graph ? 1u : 0u};
    slot.tid = static_cast<uint32_t>(core::currentTid());
    slot.launch_ns = core::coarseMonotonicNs();
    slot.stream = streamOf(domain, cbid, cb->functionParams);
    slot.context = reinterpret_cast<uintptr_t>(cb->context);
    slot.name = is_graph || cb->symbolName == nullptr ? cb->functionName : cb->symbolName;
    launches().put(slot);
    if (carveouts_.any())
      carveouts_.noteLaunch(launchFunction(domain, cbid, cb->functionParams), corr);
    if (engines_.empty()) return;
    t_engines_saw_launch = !deep_paused_.load(std::memory_order_relaxed);
    if (!t_engines_saw_launch) return;  // stepped down: traced like any launch, not instrumented
    LaunchSite site;
    site.context = cb->context;
    site.symbol = cb->symbolName;
    site.correlation_id = corr;
    site.scope_path = slot.info.scope_path;
    site.is_graph = is_graph;
    site.captured = capture_.open();
    EngineTime::Span span(engine_time_, EngineHook::Launch);
    bool alone = false;
    for (auto& engine : engines_) alone = engine->launchMustRunAlone(site) || alone;
    launch_gate_.enter(alone, site.correlation_id);  // left at this launch's exit, below
    for (auto& engine : engines_) engine->onLaunchEnter(site);
    return;
  }
  if (code != 0) {
    launches().complete(corr);  // a launch that failed has no record
    onCallFailed(callback_data, kind, domain, cbid, code);
  }
  if (engines_.empty()) return;  // only deep engines want the exit
  if (!std::exchange(t_engines_saw_launch, false)) return;
  LaunchSite site;
  site.context = cb->context;
  site.symbol = cb->symbolName;
  site.correlation_id = corr;
  site.scope_path = core::currentScopePath();
  site.is_graph = is_graph;
  site.captured = capture_.open();
  EngineTime::Span span(engine_time_, EngineHook::Launch);
  for (auto& engine : engines_) engine->onLaunchExit(site);
  launch_gate_.leave(site.correlation_id);
}

// [app thread, rare] The trigger copies what it needs before returning; the writer thread composes
// and writes the incident at its next round, which wake_writer_ brings forward.
void CuptiTracer::onCallFailed(const void* callback_data, ApiKind kind, CUpti_CallbackDomain domain,
                               CUpti_CallbackId cbid, int code) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(callback_data);
  core::IncidentTrigger t;
  if (isStickyError(code)) {
    t.kind = core::IncidentKind::CudaError;
  } else if (isOutOfMemory(code) && kind == ApiKind::Alloc) {
    t.kind = core::IncidentKind::OutOfMemory;
  } else {
    return;  // an error the program can go on from (invalid value, not ready, ...)
  }
  t.api = cb->functionName;
  t.error_code = code;
  t.has_error_code = true;
  t.error_name = errorName(code);
  t.context = reinterpret_cast<uintptr_t>(cb->context);
  t.tid = static_cast<uint32_t>(core::currentTid());
  t.scope_path = core::currentScopePath();
  t.ts_ns = core::monotonicNs();
  const char* api = cb->functionName != nullptr ? cb->functionName : "a CUDA call";
  if (t.kind == core::IncidentKind::OutOfMemory) {
    t.requested_bytes = allocationBytes(domain, cbid, cb->functionParams);
    std::string why;
    if (const DriverApi* driver = DriverLibrary::process(&why);
        driver != nullptr && driver->memGetInfo != nullptr) {
      size_t free_bytes = 0, total_bytes = 0;
      if (driver->memGetInfo(&free_bytes, &total_bytes) == CUDA_SUCCESS) {
        t.free_bytes = free_bytes;
        t.total_bytes = total_bytes;
      }
    }
    std::snprintf(t.reason, sizeof t.reason,
                  "%s of %.3g GiB failed: out of memory (%.3g GiB free of %.3g GiB)", api,
                  static_cast<double>(t.requested_bytes) / (1ull << 30),
                  static_cast<double>(t.free_bytes) / (1ull << 30),
                  static_cast<double>(t.total_bytes) / (1ull << 30));
  } else {
    std::snprintf(t.reason, sizeof t.reason,
                  "%s returned %s (%d): the context is unusable from here on", api,
                  t.error_name != nullptr ? t.error_name : "a fatal error", code);
  }
  if (flight_->trigger(t) && wake_writer_) wake_writer_();
}

void CuptiTracer::onCapture(const void* callback_data, bool begin, bool enter) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(callback_data);
  if (enter) {
    if (begin && !engines_.empty()) {
      EngineTime::Span span(engine_time_, EngineHook::Launch);
      LaunchGate::Exclusive alone(launch_gate_);  // no other thread's launch inside the driver
      for (auto& engine : engines_) engine->onCaptureBeginning();
    }
    return;
  }
  if (cb->functionParams == nullptr) return;
  // Every capture call's parameter struct starts with the stream (generated_cuda*_meta.h).
  const void* stream = *static_cast<void* const*>(cb->functionParams);
  // cudaError_t and CUresult alike: 0 is success.
  const bool ok =
      cb->functionReturnValue == nullptr || *static_cast<const int*>(cb->functionReturnValue) == 0;
  if (begin && ok) capture_.began(stream);
  if (!begin) capture_.ended(stream);
}

bool CuptiTracer::enableNvtx(bool injected, std::string* status, std::string* reason) {
  if (!started_) {
    *status = "off";
    *reason = "CUPTI tracing is off";
    return false;
  }
  for (CUpti_CallbackId cbid : kNvtxCbids) {
    if (CuptiCall c{"cuptiEnableCallback(NVTX)",
                    cupti::cuptiEnableCallback(1, static_cast<CUpti_SubscriberHandle>(subscriber_),
                                               CUPTI_CB_DOMAIN_NVTX, cbid)};
        !c.ok()) {
      *status = "off";
      *reason = c.describe();
      return false;
    }
  }
  NvtxInjectionPlan plan = configureNvtxInjection(cuptiLibrary().file, injected);
  *status = plan.status;
  *reason = plan.reason;
  return true;
}

void CuptiTracer::onNvtx(uint32_t cbid, const void* nvtx_data) {
  // Wide names are converted here; scopeBegin copies (interns) the name before we return.
  thread_local char scratch[256];
  const NvtxCall call = decodeNvtx(cbid, *static_cast<const CUpti_NvtxData*>(nvtx_data), scratch,
                                   nvtxDomainTags(), nvtxRegisteredStrings());
  switch (call.action) {
    case NvtxAction::Push:
      nvtxRangePushed(call.handle, call.text, call.tag);
      break;
    case NvtxAction::Pop:
      nvtxRangePopped(call.handle);
      break;
    case NvtxAction::DomainCreated:  // rare: the tag is built once per domain
      try {
        nvtxDomainTags().put(call.handle, nvtxDomainTag(call.text));
      } catch (...) {
      }
      break;
    case NvtxAction::StringRegistered:
      nvtxRegisteredStrings().put(call.handle, call.text);
      break;
    case NvtxAction::Ignore:
      break;
  }
}

void CuptiTracer::onResource(int cbid, const void* data) {
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: {
      uint32_t device = 0;
      cupti::cuptiGetDeviceId(rd->context, &device);
      EngineTime::Span span(engine_time_, EngineHook::Context);
      for (auto& engine : engines_) engine->onContextCreated(rd->context, device);
      break;
    }
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
      EngineTime::Span span(engine_time_, EngineHook::Context);
      for (auto& engine : engines_) engine->onContextDestroying(rd->context);
      break;
    }
    case CUPTI_CBID_RESOURCE_MODULE_LOADED: {
      const auto* module = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
      EngineTime::Span span(engine_time_, EngineHook::Module);
      if (module != nullptr && module->pCubin != nullptr)
        for (auto& engine : engines_)
          engine->onModuleLoaded(rd->context, module->pCubin, module->cubinSize);
      break;
    }
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING: {
      EngineTime::Span span(engine_time_, EngineHook::Module);
      for (auto& engine : engines_) engine->onModuleUnloading(rd->context);
      break;
    }
    default:
      break;
  }
}

void CuptiTracer::onBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = pool_.acquire();
  *size = *buffer != nullptr ? pool_.bufferBytes() : 0;
  *max_records = 0;
}

void CuptiTracer::onBufferCompleted(void* context, uint32_t stream, uint8_t* buffer,
                                    size_t valid_bytes) {
  size_t dropped = 0;
  if (cupti::cuptiActivityGetNumDroppedRecords(static_cast<CUcontext>(context), stream, &dropped) ==
      CUPTI_SUCCESS)
    dropped_.fetch_add(dropped, std::memory_order_relaxed);
  // The thread CUPTI delivers on, so the health record can name its CPU time (one relaxed store).
  cupti_tid_.store(core::currentTid(), std::memory_order_relaxed);
  // A second buffer waiting: the writer is behind the records, so it is woken now rather than at
  // its next round (each waiting buffer is 4 MiB of the process's memory).
  if (pool_.complete(buffer, valid_bytes) >= 2 && wake_writer_) wake_writer_();
}

TracerStats CuptiTracer::stats() const {
  TracerStats s;
  s.kernels = kernels_;
  s.memcpys = memcpys_;
  s.memsets = memsets_;
  s.unattributed = unattributed_;
  s.tool_kernels = tool_kernels_;
  s.untimed_kernels = untimed_kernels_;
  s.tool_kernel_ns = tool_kernel_ns_;
  s.records_dropped_by_cupti = dropped_.load(std::memory_order_relaxed);
  s.buffer_refusals = pool_.refusals();
  s.buffers_allocated = pool_.peak();  // session_end.buffers: the most held at once
  s.invalid_times = invalid_times_;
  s.checks = checks_.state();
  s.buffers_held = pool_.held();
  s.buffers_pending = pool_.pending();
  s.buffers_peak = pool_.peak();
  s.buffer_bytes = pool_.bufferBytes();
  s.cupti_tid = cupti_tid_.load(std::memory_order_relaxed);
  s.session_number = session_number_;
  s.clock_mode = offset_clock_ ? core::ClockMode::Offset : core::ClockMode::Callback;
  if (!engines_.empty()) {
    s.engine_time = engine_time_.summary();
    std::vector<std::string> details;  // engines sharing one cubin store report it alike
    for (const auto& engine : engines_) {
      std::string d = engine->workDetails();
      if (d.empty() || std::find(details.begin(), details.end(), d) != details.end()) continue;
      s.engine_time += "; " + d;
      details.push_back(std::move(d));
    }
  }
  return s;
}

}  // namespace gpufl::cuda
