#include "cuda/cuda_collector.hpp"

#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/flight_recorder.hpp"
#include "core/trace_checks.hpp"
#include "cuda/cupti_known_issues.hpp"
#include "cuda/cupti_loader.hpp"
#include "cuda/cupti_tracer.hpp"
#include "cuda/deep_support.hpp"
#include "cuda/device_props.hpp"
#include "cuda/engine_factory.hpp"

namespace gpufl::cuda {
namespace {

ProfilingEngine toProfilingEngine(Engine e) {
  return static_cast<ProfilingEngine>(static_cast<int>(e));
}

class CudaCollector final : public core::Collector {
 public:
  explicit CudaCollector(const InitOptions& options) : options_(options) {}
  ~CudaCollector() override {
    if (ctx_ != nullptr && ctx_->flight() != nullptr) ctx_->flight()->setEnricher(nullptr);
  }

  std::string_view name() const override { return "cuda"; }
  bool tracesGpu() const override { return true; }
  bool gpuProfiling() const override { return tracing_; }

  bool start(core::SessionContext& ctx) override {
    ctx_ = &ctx;
    tracer_.setKernelDetails(options_.enable_kernel_details);
    tracer_.setSyncEvents(options_.enable_sync_events);
    tracer_.setMemoryEvents(options_.enable_memory_events);
    if (core::FlightRecorder* flight = ctx.flight()) {
      tracer_.setFlightRecorder(flight, [&ctx] { ctx.requestDrain(); });
      flight->setEnricher([this](Incident& incident) { tracer_.enrichIncident(incident); });
    }
    if (!options_.enable_kernel_details)
      ctx.addNote("kernel_details", "off",
                  "enable_kernel_details is false: no occupancy breakdown per launch shape");
    // Inside CUDA_INJECTION64_PATH's entry we run within cuInit, where the driver cannot be queried
    // yet: the devices are read on the writer thread's first drain instead.
    injected_ = injectedIntoCuInit();
    started_ns_ = core::monotonicNs();
    tracer_.setCheckLimits(core::defaultTraceCheckLimits(ctx.startNs()));
    if (!injected_ && !readDeviceProperties(/*late=*/false)) return false;

    EngineContext engine_ctx;
    engine_ctx.engine = toProfilingEngine(ctx.engine());
    engine_ctx.deep_launches_per_kernel = options_.deep_launches_per_kernel;
    engine_ctx.note = [&ctx](const std::string& f, const std::string& s, const std::string& r) {
      ctx.addNote(f, s, r);
    };
    engine_ctx.now_ns = [] { return core::monotonicNs(); };
    // The deep engines call the driver through the process's one libcuda table; without an engine
    // nothing needs it here (the device properties open it themselves, when not injected).
    if (engine_ctx.engine != ProfilingEngine::None)
      engine_ctx.driver = DriverLibrary::process(&engine_ctx.driver_error);
    std::string reason;
    if (!tracer_.start(
            engine_ctx, options_.enable_stack_trace,
            makeEngines(engine_ctx.engine, DeepOptions::fromEnv(options_.deep_launches_per_kernel)),
            &reason)) {
      ctx.addNote("cupti_activity", "off", reason);
      return false;
    }
    // Which libcupti answered (the search has five places, and a wheel's copy may differ from the
    // toolkit's): the first question when numbers look wrong on one machine only.
    const CuptiLibrary& lib = cuptiLibrary();
    ctx.addNote("cupti_activity", "on",
                "kernels, memcpy and memset activity with launch callbacks; libcupti " +
                    (lib.file.empty() ? lib.path : lib.file) + " (CUPTI API version " +
                    std::to_string(lib.version) + ")");
    tracing_ = true;
    if (options_.enable_nvtx) {
      std::string status, why;
      tracer_.enableNvtx(injected_, &status, &why);
      ctx.addNote("nvtx", status, why);
    } else {
      ctx.addNote("nvtx", "off", "enable_nvtx is false (GPUFL_NVTX=0): NVTX ranges are not scopes");
    }
    return true;
  }

  // [writer thread] Once a second CUPTI also hands over its partly filled buffers (a forced flush),
  // so a program that dies by abort() or SIGKILL leaves at most about a second of kernels
  // unwritten: CUPTI's own flush period returns only full buffers. Not while a deep engine runs:
  // with PC sampling and SASS metrics on, the H200 run hung (matmul_tiling_demo, 2026-11-29).
  void drain(EventVisitor& out) override {
    const int64_t now = core::monotonicNs();
    if (injected_ && !devices_read_ && tracing_) {
      // Not before kLateReadDelayNs: the driver must not be asked while the program's cuInit may
      // still run (NVML opened on another thread meanwhile hung a PyTorch run). Kernels wait in
      // CUPTI's buffers until then, so their launch shapes get occupancy. The last round (after
      // stop(), at the program's exit) never waits.
      if (!stopping_ && now - started_ns_ < kLateReadDelayNs) return;
      readDeviceProperties(/*late=*/true, &out);
    }
    // Nor while a launch older than the period is unfinished: CUPTI would hand its kernel over
    // without times (and never again with them), so a long kernel would lose its duration. For
    // kForcedFlushHoldNs at most: a launch no record or synchronize ever ends (a hang, a record
    // lost) must not stop the flushes for good.
    if (tracing_ && !tracer_.hasDeepEngines() &&
        now - last_forced_flush_ns_ >= kForcedFlushPeriodNs) {
      const int64_t age = now - tracer_.oldestUnfinishedLaunchNs();  // a scan: once a period
      if (age < kForcedFlushPeriodNs || age >= kForcedFlushHoldNs) tracer_.flush(/*forced=*/true);
      last_forced_flush_ns_ = now;
    }
    tracer_.drain(out, ctx_->sid());
  }

  void health(Health& h, std::vector<ThreadRole>& threads) override {
    const TracerStats s = tracer_.stats();
    core::reportChecks(s.checks, h);
    if (!tracing_) h.clock_mode.clear();  // nothing was traced: no clock to speak of
    h.activity_buffers = s.buffers_held;
    h.activity_buffers_pending = s.buffers_pending;
    h.activity_buffers_peak = s.buffers_peak;
    h.buffer_bytes += s.buffers_held * s.buffer_bytes;
    h.dropped["activity"] += s.records_dropped_by_cupti;
    h.dropped["activity_buffers_refused"] += s.buffer_refusals;
    h.dropped["launch_attribution"] += s.unattributed;
    h.dropped["untimed_kernels"] += s.untimed_kernels;
    if (s.invalid_times > 0) h.dropped["invalid_times"] += s.invalid_times;
    if (tracing_) {
      h.cupti_version = cuptiLibrary().version;
      h.cupti_issues = cuptiKnownIssues(cuptiLibrary().version, s.session_number);
    }
    if (s.cupti_tid != 0) threads.push_back({s.cupti_tid, "cupti"});
  }
  bool runsDeepEngines() const override { return tracer_.hasDeepEngines(); }
  bool pauseDeepEngines() override { return tracer_.pauseDeepEngines(); }

  void stop() override {
    stopping_ = true;
    if (tracing_) tracer_.flush(/*forced=*/true);
    tracer_.stop();
  }

  void finish(SessionEnd& end) override {
    TracerStats s = tracer_.stats();
    end.dropped["activity"] += s.records_dropped_by_cupti;
    end.dropped["activity_buffers_refused"] += s.buffer_refusals;
    end.dropped["launch_attribution"] += s.unattributed;
    end.dropped["untimed_kernels"] += s.untimed_kernels;
    if (s.untimed_kernels > 0) {
      // Seen on the H200: 3 of 93,239 kernels in a gpufl.bench sweep of cuBLAS graph replays.
      // After a fatal CUDA error every record of the faulted context comes so: the launches are in
      // the incident's in-flight list, in launch order with their launch times.
      ctx_->addNote("cupti_activity", "degraded",
                    std::to_string(s.untimed_kernels) +
                        " kernel records came from CUPTI without timestamps (start = end = 0): "
                        "left out of the kernel list, counted as dropped (untimed_kernels); "
                        "after a fatal CUDA error these are the faulted context's kernels, listed "
                        "in the incident");
    }
    if (s.invalid_times > 0) end.dropped["invalid_times"] += s.invalid_times;
    if (const uint64_t n = s.checks.violations(); n > 0) {
      std::string kinds;
      for (size_t i = 0; i < core::kTraceViolationKinds; ++i) {
        if (const uint64_t c = s.checks.kinds[i].count; c > 0)
          kinds += (kinds.empty() ? "" : ", ") + std::to_string(c) + " " +
                   core::traceViolationName(static_cast<core::TraceViolation>(i));
      }
      ctx_->addNote("trace_checks", "degraded",
                    std::to_string(n) + " of " + std::to_string(s.checks.records) +
                        " records failed gpufl's checks (" + kinds +
                        "): the health records hold examples");
    }
    end.buffers += s.buffers_allocated;
    if (!s.engine_time.empty()) {
      // After the last drain: the whole cost of the deep engines, by hook.
      ctx_->addNote("deep_engine_time", "on", "wall time in the engines: " + s.engine_time);
    }
    if (s.tool_kernels > 0) {
      ctx_->addNote(
          "cupti_tool_kernels", "degraded",
          std::to_string(s.tool_kernels) +
              " kernels launched by CUPTI itself (WaitNs, one per profiled range) are left "
              "out of the kernel list: " +
              std::to_string(s.tool_kernel_ns / 1000) +
              " us of GPU time, also inside each range's gpu__time_duration");
    }
  }

 private:
  // Reads every device; at start they go into session_start, later (injection) into `device`
  // records.
  bool readDeviceProperties(bool late, EventVisitor* out = nullptr) {
    devices_read_ = true;
    DevicesResult r = readDevices();
    for (const auto& w : r.warnings) ctx_->addNote("device_properties", "degraded", w);
    if (!r.ok) {
      // At start this stops tracing; read late (injection) tracing is already on and only the
      // device properties (and so occupancy) are missing.
      ctx_->addNote(late ? "device_properties" : "cupti_activity", "off", r.reason);
      return false;
    }
    for (auto& d : r.devices) {
      if (late && out != nullptr) {
        out->onDevice(DeviceEvent{ctx_->sid(), d});
      } else {
        ctx_->addDevice(d);
      }
    }
    tracer_.setDevices(r.devices);
    return true;
  }

  InitOptions options_;
  core::SessionContext* ctx_ = nullptr;
  CuptiTracer tracer_;
  bool tracing_ = false;
  bool injected_ = false;
  bool devices_read_ = false;
  static constexpr int64_t kForcedFlushPeriodNs = 1'000'000'000;
  static constexpr int64_t kForcedFlushHoldNs = 30'000'000'000;
  // The writer's rounds come every 50 ms at most; the first one read the devices until rounds
  // followed the recording rate (5 ms first round): the same delay is kept for that read.
  static constexpr int64_t kLateReadDelayNs = 50'000'000;
  int64_t started_ns_ = 0;
  bool stopping_ = false;  // set by stop(), before the session's last round on the same thread
  int64_t last_forced_flush_ns_ = 0;  // writer thread only
};

}  // namespace

std::unique_ptr<core::Collector> makeCollector(const InitOptions& options) {
  return std::make_unique<CudaCollector>(options);
}

}  // namespace gpufl::cuda
