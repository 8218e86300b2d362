// The collector seam: how data sources plug into a session without the runtime knowing what
// they are.
//
// A Collector is owned by the Session. Lifecycle, one call at a time (never concurrently):
//   factory(options) -> start(ctx) -> { onRecord(...)*, drain(out) } every writer round
//   -> stop() -> one last { onRecord*, drain } -> finish(session_end) -> destroyed.
// start/stop run on the thread calling gpufl::init/shutdown; onRecord/drain on the writer thread
// (or on the shutdown thread for the last round, after the writer thread has been joined).
//
// How the two kinds of source fit:
// - CUDA (CUPTI): start() subscribes and registers ctx.clock() as CUPTI's timestamp callback.
//   CUPTI's buffer-completed callback only queues the buffer (and may call ctx.requestDrain());
//   drain() decodes queued buffers into KernelDef/KernelEvent/MemcpyEvent... Launch callbacks
//   read core::currentScopePath() and may push fixed-size records into the launching thread's
//   buffer (core::pushRecord, kind >= kFirstBackendKind); those come back through onRecord() on
//   the writer thread, before drain().
// - Samplers (NVML, /proc): start() launches their own thread, which pushes GpuSample/HostSample
//   into a small bounded queue (e.g. core/event_queue.hpp); drain() moves the queue into
//   `out`; stop() joins the thread.
//
// Registration (src/runtime/collector_registry.hpp): the runtime registers its built-in factories
// explicitly (src/runtime/builtin_collectors.cpp: the system collector, and the CUDA collector when
// the CUDA backend is built); code may also register factories at run time (tests, bindings):
// runtime::registerCollectorFactory(). This header is in core so that backends (src/cuda) implement
// the seam without including anything of the runtime above them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/event_visitor.hpp"
#include "core/events.hpp"
#include "core/records.hpp"
#include "gpufl/gpufl.hpp"

namespace gpufl::core {

class FlightRecorder;

// What a collector can learn from and tell its session. Implemented by Session.
class SessionContext {
 public:
  virtual ~SessionContext() = default;

  virtual const std::string& sessionId() const = 0;  // UUID v4
  virtual const std::string& sid()
      const = 0;  // put it in every event you emit (the session fills it if empty)
  virtual const InitOptions& options() const = 0;  // after environment overrides
  virtual Engine engine() const = 0;
  virtual int64_t startNs() const = 0;  // monotonic, = session_start.start_ns

  // The session clock (CLOCK_MONOTONIC ns) with CUPTI's timestamp-callback signature.
  using ClockFn = uint64_t (*)();
  virtual ClockFn clock() const = 0;

  // Records the state of a feature as a `note` (device channel), in call order. status: "on",
  // "off", "degraded". Thread-safe; may be called at any time while the collector lives.
  virtual void addNote(std::string_view feature, std::string_view status,
                       std::string_view reason) = 0;
  // Adds a device to session_start.devices. Only during start(): session_start is written after
  // every start().
  virtual void addDevice(const DeviceInfo& device) = 0;
  // Asks the writer thread to drain soon (a CUPTI buffer completed, a queue is filling).
  // Thread-safe, never blocks for long; a request may coalesce with the next periodic tick (every
  // ~50 ms anyway).
  virtual void requestDrain() = 0;
  // The session's flight recorder (launches in flight, waits, incident triggers); nullptr when the
  // session has none (tests).
  virtual FlightRecorder* flight() { return nullptr; }
};

class Collector {
 public:
  virtual ~Collector() = default;

  // Short, stable: "cuda", "nvml", "host". Used in messages and as the default drop/overhead key.
  virtual std::string_view name() const = 0;
  // True for a collector that can trace the GPU (even if start() then fails). When no collector
  // says so, the session notes `cupti_activity off: gpufl built without CUDA backend`.
  virtual bool tracesGpu() const { return false; }

  // Starts collecting. Returns false when it cannot (say why with ctx.addNote first); it is then
  // still drained, stopped and finished like the others, so partial output is kept. `ctx` outlives
  // the collector.
  virtual bool start(SessionContext& ctx) = 0;
  // After start(): true when GPU profiling is really on. gpufl::init returns true iff some
  // collector says so.
  virtual bool gpuProfiling() const { return false; }

  // [writer thread] A per-thread record of kind >= RecordKind::kFirstBackendKind
  // (core::pushRecord), in each thread's order. Called before drain() in the same round. Default:
  // ignored.
  virtual void onRecord(const core::Record& record, const core::ThreadInfo& thread) {
    (void)record;
    (void)thread;
  }
  // [writer thread] Moves everything collected since the previous call into `out`.
  virtual void drain(EventVisitor& out) = 0;

  // Stops collecting (flush CUPTI, join sampler threads). Everything collected must be drainable
  // afterwards.
  virtual void stop() = 0;
  // After the last drain: add to session_end, e.g. end.dropped["activity"],
  // end.overhead_ns["cupti_callbacks"], end.cpu_time_ns (your threads' CPU time), end.buffers.
  // Counts of kernels/memcpys/scopes are the session's.
  virtual void finish(SessionEnd& end) { (void)end; }

  // gpufl::startSystemSampling/stopSystemSampling (sampling_auto_start=false starts samplers
  // paused). Called on the API's thread while the writer thread may be in drain(): make it
  // thread-safe (an atomic flag will do).
  virtual void setSampling(bool on) { (void)on; }

  // [writer thread, or the stopping thread for the last one] Adds this collector's part to a health
  // record (runtime/health_reporter.hpp): its buffers, its drops so far, what its checks of the
  // records found, and the threads of its own that the record should name, as (tid, role) pairs
  // (threads named "gpufl-*" are found by name). Default: nothing.
  struct ThreadRole {
    int64_t tid = 0;
    std::string role;
  };
  virtual void health(Health& health, std::vector<ThreadRole>& threads) {
    (void)health;
    (void)threads;
  }
  // [writer thread] Stepping down when gpufl's cost crosses the user's limits
  // (core/step_down.hpp). Each returns true when it did something: the deep engines see no new
  // launch; periodic sampling runs `factor` times slower than asked. Default: nothing to give up.
  virtual bool runsDeepEngines() const { return false; }
  virtual bool pauseDeepEngines() { return false; }
  virtual bool samples() const { return false; }
  virtual bool slowSampling(int factor) {
    (void)factor;
    return false;
  }
};

// Makes the collector for a session, or nullptr when it does not apply to these options. May throw:
// the session catches it and writes a note.
using CollectorFactory = std::function<std::unique_ptr<Collector>(const InitOptions& options)>;

}  // namespace gpufl::core
