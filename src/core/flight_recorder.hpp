// The flight recorder proper: what the GPU was doing when something went wrong.
//
// It holds the launches in flight (LaunchTable: launched, record not yet arrived), the host threads
// waiting for the GPU (in a synchronize or a blocking copy), and what successful synchronizes
// proved finished. Triggers (a fatal CUDA error or an out-of-memory seen at an API exit, a crash
// signal, std::terminate, the hang watchdog, a dump asked for) capture that state at once into a
// fixed slot, without allocating or locking, so that a signal handler may trigger too; the writer
// thread turns each captured trigger into one `incident` record (takeIncidents) and flushes it.
//
// GPU-free: the CUDA backend fills the table and calls the triggers from its callbacks, and adds
// what only it knows (CUPTI stream ids, the last kernels of each stream) through the enricher.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/events.hpp"
#include "core/launch_table.hpp"

namespace gpufl::core {

enum class IncidentKind : uint8_t { CudaError, OutOfMemory, Hang, Signal, Terminate, Dump, Xid };
const char* incidentKindName(IncidentKind kind);

// What a trigger knows when it fires. Strings are static or copied before the trigger returns.
struct IncidentTrigger {
  IncidentKind kind = IncidentKind::Dump;
  const char* api = nullptr;         // static text, or nullptr
  const char* error_name = nullptr;  // static text, or nullptr
  int64_t error_code = 0;
  bool has_error_code = false;
  uint64_t context = 0;  // the CUcontext the erroring call ran in (0: unknown)
  uint32_t tid = 0;
  uint32_t scope_path = 0;
  int64_t ts_ns = 0;
  uint64_t requested_bytes = 0, free_bytes = 0, total_bytes = 0;  // out of memory (0: unknown)
  uint32_t gpu = 0;                                               // an Xid's GPU (NVML index)
  char reason[160] = {};                                          // for a dump: the caller's reason
};

class FlightRecorder {
 public:
  static constexpr size_t kMaxListed = 64;      // in-flight launches listed per incident
  static constexpr size_t kOldestListed = 16;   // of which the oldest (the rest: the latest)
  static constexpr size_t kMaxWaiters = 256;    // host threads tracked in waits
  static constexpr size_t kMaxWatermarks = 64;  // streams whose last synchronize is remembered
  static constexpr size_t kMaxPending = 8;      // incidents captured and not yet written
  static constexpr size_t kMaxIncidents = 32;   // per session: later ones are counted only
  static constexpr int64_t kOomRepeatNs = 10'000'000'000;  // one out-of-memory incident per 10 s

  FlightRecorder();
  ~FlightRecorder();
  FlightRecorder(const FlightRecorder&) = delete;
  FlightRecorder& operator=(const FlightRecorder&) = delete;

  LaunchTable& launches() { return launches_; }

  // The recorder signal handlers and std::terminate reach (nullptr when no session records).
  static FlightRecorder* current();
  void makeCurrent();
  void clearCurrent();

  // ---- [app thread] waits and synchronizes -----------------------------------------------------
  // A host thread begins / ends a call that waits for the GPU. No allocation after the thread's
  // first wait; a thread beyond kMaxWaiters is not tracked.
  void waitBegins(const char* api, uint64_t stream, uint32_t scope_path, int64_t now_ns);
  void waitEnds();
  // A synchronize returned success: every launch on the context (stream 0 and whole_context) or on
  // the stream made before correlation id `corr` has finished.
  void synchronized(uint64_t context, uint64_t stream, bool whole_context, uint32_t corr);
  // [any thread] Whether a successful synchronize since proved `launch` finished (its record may
  // never say so: CUPTI hands a kernel still running at a forced flush over without times).
  bool provenFinished(const LaunchSlot& launch) const;
  // [writer thread] The launch time of the oldest launch still pending and not proven finished
  // (INT64_MAX when none): a forced flush now would hand its record over without times.
  int64_t oldestUnfinishedLaunchNs() const;

  // ---- triggers (any thread; trigger() is async-signal-safe) ----------------------------------
  // Captures the state now. False when the trigger was left out: a repeat (the same CUDA error on
  // the same context, out of memory within kOomRepeatNs), or the session's kMaxIncidents reached
  // (counted in suppressed()).
  bool trigger(const IncidentTrigger& t);
  uint64_t suppressed() const { return suppressed_.load(std::memory_order_relaxed); }

  // ---- [writer thread] ------------------------------------------------------------------------
  // The incidents captured since the last call (those captured at or before `captured_by_ns`),
  // composed; `sid` set.
  std::vector<Incident> takeIncidents(const std::string& sid, int64_t captured_by_ns = INT64_MAX);
  // Called with every incident before it is written (CUPTI stream ids, last kernels per stream).
  void setEnricher(std::function<void(Incident&)> enrich) { enrich_ = std::move(enrich); }
  // Records arrived from the GPU (the hang watchdog's sign of progress).
  void noteArrival(int64_t now_ns) { last_arrival_ns_.store(now_ns, std::memory_order_relaxed); }

  // ---- hang watchdog --------------------------------------------------------------------------
  // Starts a thread of gpufl's that checks, every min(1 s, timeout / 4): a host thread waiting for
  // the GPU longer than `timeout_ns`, or (when `pending_check`) launches older than `timeout_ns`
  // with no record arriving for as long. One incident per distinct state; the program is never
  // touched. `wake` is called after a trigger so the writer writes it soon.
  void startWatchdog(int64_t timeout_ns, bool pending_check, std::function<int64_t()> now_ns,
                     std::function<void()> wake);
  void stopWatchdog();
  // One check of the watchdog (tests call it with their own clock). True when it triggered.
  bool checkHang(int64_t now_ns);

 private:
  struct Captured {
    std::atomic<int> state{0};  // 0 free, 1 being written, 2 ready
    IncidentTrigger trigger;
    size_t pending = 0;  // launches in flight in all
    size_t listed = 0;
    LaunchSlot launches[kMaxListed];
    char names[kMaxListed][128];
    size_t waiters = 0;
    struct Waiter {
      uint32_t tid;
      const char* api;
      int64_t since_ns;
      uint64_t stream;
      uint32_t scope_path;
    } waiting[16];
  };
  struct WaitSlot {
    std::atomic<uint32_t> tid{0};
    std::atomic<const char*> api{nullptr};  // nullptr: not waiting
    std::atomic<int64_t> since_ns{0};
    std::atomic<uint64_t> stream{0};
    std::atomic<uint32_t> scope_path{0};
  };
  struct Watermark {
    std::atomic<uint64_t> key{0};  // the stream handle, or the context handle | 1 for a context
    std::atomic<uint32_t> corr{0};
  };

  WaitSlot* ownWaitSlot();
  void raiseWatermark(uint64_t key, uint32_t corr);
  uint32_t watermark(uint64_t key) const;
  bool isRepeat(const IncidentTrigger& t);
  Incident compose(const Captured& c, const std::string& sid) const;
  void attribute(const Captured& c, Incident& out) const;
  void watchLoop();

  LaunchTable launches_;
  WaitSlot waiters_[kMaxWaiters];
  std::atomic<size_t> waiters_used_{0};
  Watermark watermarks_[kMaxWatermarks];
  Captured captured_[kMaxPending];
  std::atomic<uint64_t> suppressed_{0};
  std::atomic<uint32_t> incidents_{0};
  std::atomic<int64_t> last_oom_ns_{INT64_MIN};
  std::atomic<uint64_t> error_seen_[8] = {};  // (context ^ code) of CUDA errors already recorded
  std::atomic<int64_t> last_arrival_ns_{0};
  std::function<void(Incident&)> enrich_;

  // Watchdog.
  int64_t hang_timeout_ns_ = 0;
  bool pending_check_ = false;
  uint64_t last_hang_key_ = 0;
  std::function<int64_t()> now_ns_;
  std::function<void()> wake_;
  std::thread watchdog_;
  std::mutex watch_mu_;
  std::condition_variable watch_cv_;
  bool watch_stop_ = false;
};

// A clock cheap enough for every launch (CLOCK_MONOTONIC_COARSE: a few ms resolution), in the
// session clock's units and epoch.
int64_t coarseMonotonicNs();

}  // namespace gpufl::core
