// The seam between the CUPTI tracer and the deep engines (SASS metrics, PC sampling, range
// profiler).
//
// CUPTI allows one callback subscriber per process, so the tracer owns it and forwards what the
// engines need. Each hook names the thread it runs on. Hooks on application threads must be cheap
// and must never block on the writer thread. An engine that fails turns itself off with a note; it
// never stops tracing.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/event_visitor.hpp"
#include "cuda/capture_tracker.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/kernel_activity_switch.hpp"
#include "cuda/launch_gate.hpp"
#include "gpufl/gpufl.hpp"

namespace gpufl::cuda {

struct EngineContext {
  ProfilingEngine engine = ProfilingEngine::None;
  int deep_launches_per_kernel =
      5;  // instrument the first N launches of each function, trace the rest
  // Thread-safe: records what a feature did ("pc_sampling", "off",
  // "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ...").
  std::function<void(const std::string& feature, const std::string& status,
                     const std::string& reason)>
      note;
  // The session's clock (ns), the same one CUPTI's timestamps are put on.
  std::function<int64_t()> now_ns;
  // Open stream captures (set by the tracer): while one is open, engines make no synchronizing or
  // allocating call and leave launches alone (capture_tracker.hpp).
  const CaptureTracker* capture = nullptr;
  bool captureOpen() const { return capture != nullptr && capture->open(); }
  // Held by the tracer around every launch's engine callbacks (launch_gate.hpp): exclusively when
  // an engine's launchMustRunAlone said so. An engine that finds, under its own lock, that a
  // launch it let through shared must run alone after all calls gate->upgrade().
  LaunchGate* gate = nullptr;
  // The process's libcuda table (DriverLibrary::process, driver_api.hpp; tests give fakes); nullptr
  // when there is no driver, and driver_error says why. The engines' driver calls go through it.
  const DriverApi* driver = nullptr;
  std::string driver_error = "no NVIDIA driver";
  // The kernel activity kind (set by the tracer when an engine needsSerializedKernelActivity):
  // an engine serializes kernels before enabling SASS and marks each instrumented launch
  // (kernel_activity_switch.hpp).
  KernelActivitySwitch* kernel_activity = nullptr;
};

// A kernel launch seen in a launch callback, on the launching application thread.
struct LaunchSite {
  CUcontext context = nullptr;
  CUfunction function = nullptr;  // null when the API does not expose it (graph launches)
  const char* symbol = nullptr;   // function name as CUPTI gives it (may be null)
  uint32_t correlation_id = 0;
  uint32_t scope_path = 0;  // innermost user scope path on this thread (0 = none)
  bool is_graph = false;
  bool captured =
      false;  // a stream capture was open at the launch: it may only be recorded into a graph
};

class DeepEngine {
 public:
  virtual ~DeepEngine() = default;
  virtual const char* name() const = 0;
  // [init thread] After the tracer subscribed; false (with a note) turns the engine off.
  virtual bool start(const EngineContext& ctx) = 0;
  // [driver thread that created/destroys the context]
  virtual void onContextCreated(CUcontext /*context*/, uint32_t /*device*/) {}
  virtual void onContextDestroying(CUcontext /*context*/) {}
  // [loading thread] A module's cubin (valid only during the call); for SASS text and source lines.
  virtual void onModuleLoaded(CUcontext /*context*/, const void* /*cubin*/, size_t /*bytes*/) {}
  // [application thread] A module of `context` is about to be unloaded (resource callback).
  virtual void onModuleUnloading(CUcontext /*context*/) {}
  // [application thread] A stream capture is about to begin (API enter): the last moment for work
  // that waits for the context, as nothing may wait while a capture is open (capture_tracker.hpp).
  virtual void onCaptureBeginning() {}
  // [application thread] Around each kernel launch (API enter / exit).
  // [application thread] Before onLaunchEnter: true when this launch must run with no launch of
  // another thread inside the driver (the engine will enable instrumentation or call CUPTI APIs
  // that deadlocked against concurrent launches on the H200). Cheap; no CUPTI call.
  virtual bool launchMustRunAlone(const LaunchSite& /*launch*/) { return false; }
  virtual void onLaunchEnter(const LaunchSite& /*launch*/) {}
  virtual void onLaunchExit(const LaunchSite& /*launch*/) {}
  // [app thread] A user scope begins/ends (range profiler ranges). path = scope path id.
  virtual bool wantsScopes() const { return false; }  // true: onScopeBegin/End are called
  virtual void onScopeBegin(uint32_t /*path*/, const char* /*name*/) {}
  virtual void onScopeEnd(uint32_t /*path*/) {}
  // [writer thread] True when the launch with this correlation id ran instrumented (its duration is
  // inflated).
  virtual bool wasInstrumented(uint64_t /*correlation_id*/) const { return false; }
  // [writer thread] Hands collected data (SassMetric, PcSample, RangeCounters, Note) to the log.
  virtual void drain(EventVisitor& /*out*/) {}
  // [shutdown thread] Collects what is pending and disables everything; drain() is called once more
  // after.
  virtual void stop() = 0;

  // [init thread, before start()] True when the tracer must record kernels with
  // CUPTI_ACTIVITY_KIND_KERNEL instead of CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL. Measured on the
  // H200 (CUDA 13.0, driver 580.159.04): with CONCURRENT_KERNEL enabled every SASS metric value
  // reads 0, and enabling CONCURRENT_KERNEL while SASS metrics are enabled fails with
  // CUPTI_ERROR_NOT_COMPATIBLE; with KERNEL the values equal Nsight Compute's. KERNEL serializes
  // kernels: the report says so. The tracer then serializes kernels only while instrumentation
  // may run (context.kernel_activity).
  virtual bool needsSerializedKernelActivity() const { return false; }

  // [writer thread] True for a kernel this engine's CUPTI API launched itself (no launch callback
  // saw it): the tracer leaves it out of the program's kernels and counts it instead.
  virtual bool ownsKernel(std::string_view /*mangled_name*/) const { return false; }

  // [shutdown thread, after the last drain] What the engine's own helpers cost ("cubins: ...,
  // nvdisasm 6.1 s (5 runs)"), for the deep_engine_time note; "" when nothing to say.
  virtual std::string workDetails() const { return ""; }
};

}  // namespace gpufl::cuda
