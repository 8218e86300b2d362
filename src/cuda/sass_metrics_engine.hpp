// SASS metrics: per-instruction counters from CUPTI's SASS Metrics API (the binary is patched to
// count), for the first deep_launches_per_kernel launches of each function.
//
// What CUPTI allows (cupti_sass_metrics.h, and measured on the H200, CUDA 13.0):
//   - cuptiProfilerInitialize first; cuptiSassMetricsSetConfig once per device (after an Unset, a
//     second SetConfig returned CUPTI_ERROR_OUT_OF_MEMORY); Enable/Disable per context mark a
//     range: every kernel launched between them is patched and counted. With enableLazyPatching a
//     function is patched at its first launch in the range (Enable took 30-60 us). Eager patching
//     patched nothing: with lazy module loading the functions are loaded after Enable.
//   - Values accumulate over all launches in the range until cuptiSassMetricsFlushData; one record
//     per (instruction, metric) at GPU granularity. Disable drops unflushed records, so the engine
//     waits for the context and flushes before every Disable.
//   - Enable/Disable work from inside a launch callback (measured: 60 us each).
//   - Values equal Nsight Compute's, but only when kernels are traced with
//     CUPTI_ACTIVITY_KIND_KERNEL: with CONCURRENT_KERNEL every value reads 0 (see
//     DeepEngine::needsSerializedKernelActivity).
// Instrumented launches run 20-60x slower (patched instructions; measured on loop-heavy kernels).
#pragma once

#include <cupti.h>

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cuda/cubin_sass.hpp"
#include "cuda/deep_engine.hpp"
#include "cuda/deep_support.hpp"

namespace gpufl::cuda {

// The counters the engine collects, by role.
enum class SassCounter : uint8_t {
  Inst,
  ThreadInst,
  ThreadInstPredOn,
  Sectors,
  SectorsIdeal,
  kCount
};
const char* sassCounterMetric(SassCounter counter);  // "smsp__sass_inst_executed", ...

// Per-PC sums and per-function launch counts. Plain data: CPU tests drive it with hand-made
// records.
class SassAggregator {
 public:
  struct Row {
    uint64_t crc = 0;
    std::string function;
    uint64_t pc = 0;
    std::array<uint64_t, static_cast<size_t>(SassCounter::kCount)> value{};
    uint64_t get(SassCounter c) const { return value[static_cast<size_t>(c)]; }
  };

  void add(uint64_t crc, const std::string& function, uint64_t pc, SassCounter counter,
           uint64_t value);
  // One instrumented launch of `function`.
  void countLaunch(const std::string& function) { ++launches_[function]; }
  // Every launch counted so far has been flushed into add() (called after each flush).
  void markFlushed() { flushed_ = launches_; }
  // Removes and returns the rows of every function for which `done(function)` holds and whose
  // launches were all flushed (all functions when `done` is empty), with the launch count of each.
  // Rows whose counters are all zero (never executed) are dropped.
  std::vector<std::pair<Row, uint64_t>> take(const std::function<bool(const std::string&)>& done);
  size_t rows() const { return rows_.size(); }

 private:
  using Key = std::tuple<std::string, uint64_t, uint64_t>;  // function, crc, pc
  std::map<Key, Row> rows_;
  std::unordered_map<std::string, uint64_t> launches_;
  std::unordered_map<std::string, uint64_t> flushed_;
};

// The metric configuration chosen for one chip from CUPTI's list.
struct SassMetricPlan {
  std::map<SassCounter, std::string> metrics;  // counter -> metric name to configure
  bool ideal_from_hardware = false;
  std::string problem;  // non-empty: the engine cannot run (a required metric is missing)
};
// Required: inst, thread inst, sectors. Ideal sectors from smsp__sass_sectors_mem_global_ideal when
// the chip lists it; otherwise thread_inst_executed_pred_on is added for the SASS-width estimate.
SassMetricPlan planSassMetrics(const std::set<std::string>& available);

class SassMetricsEngine final : public DeepEngine {
 public:
  SassMetricsEngine(std::shared_ptr<LaunchScheduler> scheduler, std::shared_ptr<CubinStore> cubins);
  ~SassMetricsEngine() override;

  const char* name() const override { return "sass_metrics"; }
  bool start(const EngineContext& ctx) override;
  void onContextCreated(CUcontext context, uint32_t device) override;
  void onContextDestroying(CUcontext context) override;
  void onModuleLoaded(CUcontext context, const void* cubin, size_t bytes) override;
  // Flushes and disables SASS on the context before its module goes: CUPTI keeps the patched
  // functions of an enabled context (H200: a JIT module unloaded while enabled, then the primary
  // context released, and libcupti's exit handler crashed).
  void onModuleUnloading(CUcontext context) override;
  // Closes SASS on every context: launches patched lazily while a capture is open invalidated it
  // (H200: another thread launching into an enabled context during a thread-local capture).
  void onCaptureBeginning() override;
  // Alone (launch_gate.hpp) when SASS is to be enabled for it or is on in some context: a patched
  // launch must not meet another thread's launch inside the driver.
  bool launchMustRunAlone(const LaunchSite& launch) override;
  void onLaunchEnter(const LaunchSite& launch) override;
  void onLaunchExit(const LaunchSite& launch) override;
  bool wasInstrumented(uint64_t correlation_id) const override;
  void drain(EventVisitor& out) override;
  void stop() override;
  bool needsSerializedKernelActivity() const override { return true; }
  std::string workDetails() const override { return cubins_ ? cubins_->workSummary() : ""; }

 private:
  struct Context {
    CUcontext handle = nullptr;
    uint32_t device = 0;
    bool configured = false;  // configureDeviceLocked ran for it (at its first launch)
    bool usable = false;      // device configured; false after a failure
    bool enabled = false;     // between cuptiSassMetricsEnable and Disable
    bool closing =
        false;          // a thread waits (unlocked) for the context before flushing and disabling
    int in_flight = 0;  // launches between their enter and exit callbacks while enabled
    uint64_t submitted = 0;  // launches counted while enabled (a close retries when it moved)
    bool gpu_busy = false;   // the last close found the GPU busy after kLaunchPathWait: later
                             // closes only look (no wait) until it is idle
  };

  bool configureDeviceLocked(uint32_t device);
  bool enableLocked(Context& c);
  // Moves CUPTI's records into aggregator_; the context's instrumented kernels must have finished.
  void flushLocked(Context& c);
  // Waits for the context with mutex_ released (a wait under a lock that launch callbacks take
  // deadlocked four launching threads on the H200), then flushes and disables unless another launch
  // was instrumented meanwhile or a capture opened (then a later launch closes).
  void closeUnlocked(std::unique_lock<std::mutex>& lock, CUcontext handle);
  void disableLocked(Context& c);
  void unsetConfig(uint32_t device);
  bool heldShared() const;
  // Kernels serialized before SASS is enabled (false: CUPTI refused, SASS stays off; noted once).
  bool serializeKernelsLocked(int64_t now_ns);
  // Concurrent kernel tracing again when quiet (kernel_activity_switch.hpp); may release and
  // re-take `lock` to upgrade this launch's gate hold.
  void relaxKernelsUnlocked(
      std::unique_lock<std::mutex>& lock,
      int64_t now_ns);  // this thread's launch holds the gate shared (may not enable SASS)
  void rememberInstrumentedLocked(uint32_t correlation_id);
  void note(const std::string& status, const std::string& reason);
  void emit(EventVisitor& out, std::vector<std::pair<SassAggregator::Row, uint64_t>> rows,
            bool estimate_ideal);

  std::shared_ptr<LaunchScheduler> scheduler_;
  std::shared_ptr<CubinStore> cubins_;
  EngineContext ctx_;
  std::atomic<bool> started_{false};
  std::atomic<int> enabled_contexts_{0};  // contexts between Enable and Disable (no lock to read)
  bool estimate_ideal_ = false;           // some device lacks smsp__sass_sectors_mem_global_ideal

  mutable std::mutex mutex_;  // guards everything below and every SASS Metrics API call
  std::map<CUcontext, Context> contexts_;
  std::map<uint32_t, SassMetricPlan> plans_;  // by device; configured devices only
  std::map<uint64_t, SassCounter> metric_ids_;
  SassAggregator aggregator_;
  std::unordered_set<uint32_t> instrumented_;
  std::deque<uint32_t> instrumented_order_;
  std::set<std::string> noted_;  // problems already reported once
};

}  // namespace gpufl::cuda
