// Range profiler: hardware counters per user scope, from CUPTI's Range Profiler API
// (cupti_range_profiler.h) and the profiler host API (cupti_profiler_host.h) that turns counters
// into metric values.
//
// What CUPTI allows, and what was measured on the H200 (CUDA 13.0, driver 580.159.04):
//   - User ranges with user replay: the outermost scope is one range (Start, PushRange ...
//   PopRange,
//     Stop, DecodeData, evaluate). A config that needs one pass is collected on every instance of
//     the scope and did not slow the kernel measurably (9.96 ms vs 9.89 ms).
//   - A config that needs several passes is not: with user replay, Stop reported every pass
//   submitted
//     after the first session and the multi-pass metrics evaluated to NaN. So the metrics are split
//     into groups that each fit one pass (decided with cuptiProfilerHostGetNumOfPasses); the groups
//     take turns, GPUFL_RANGE_PHASE (16) ranges each. Every group carries gpu__time_duration.sum,
//     so every range_counters record has the range's GPU time; the other metrics come from its
//     group.
//   - Metrics that need several passes on their own cannot be had this way: on GH100
//     sm__throughput.avg.pct_of_peak_sustained_elapsed needs 8 (reported unavailable, in a note),
//     and lts__t_sector_hit_rate.pct needs 2 and is derived from lts__t_sectors_lookup_hit.sum and
//     lts__t_sectors_lookup_miss.sum, from the latest range of the same scope path that collected
//     each.
//   - A range profiler object keeps the first config it is given; a later SetConfig with another
//   config
//     left that config's metrics NaN. Switching groups therefore disables the object and enables a
//     new one (only when consecutive ranges use different groups).
//   - A counter data image takes its layout from the object's latest GetCounterDataSize call, so
//   each
//     range's image is sized and initialized right before its SetConfig.
//   - Each range adds a CUPTI kernel named "WaitNs" (~80 us) to the trace.
//   - Auto ranges with kernel replay (all metrics per kernel) crashed with SIGSEGV at the first
//   kernel
//     launch on the H200. Per-kernel ranges (GPUFL_RANGE_PER_KERNEL=1) use auto ranges with user
//     replay instead: every kernel launched in the outermost scope is a range of its own (up to
//     GPUFL_RANGE_MAX_KERNELS, 64), one range_counters record per launch with `kernel` set.
//     Measured there: CUPTI names auto ranges by a running number ("0", "1", ... across Start/Stop
//     sessions), not by kernel, so the engine names range i after the i-th launch it saw on the
//     context since Start; the range's duration is the kernel's (1.005-1.017x ncu for 20 us-18 ms
//     kernels, 1.07x for the ~20 us reductions), and one WaitNs kernel runs per Start/Stop.
//   - Counters need privileges: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES turns the engine off with a
//   note.
// One range is open at a time per process: scopes nested in a profiled scope, and scopes of other
// threads while one is profiled, are not ranges of their own.
#pragma once

#include <cupti.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cuda/deep_engine.hpp"
#include "cuda/deep_support.hpp"
#include "cuda/range_metric_plan.hpp"

namespace gpufl::cuda {

class RangeProfilerEngine final : public DeepEngine {
 public:
  RangeProfilerEngine();
  ~RangeProfilerEngine() override;

  const char* name() const override { return "range_profiler"; }
  bool start(const EngineContext& ctx) override;
  void onContextCreated(CUcontext context, uint32_t device) override;
  void onContextDestroying(CUcontext context) override;
  bool wantsScopes() const override { return true; }
  // CUPTI's range profiler launches a ~80 us `WaitNs` kernel per range (measured on the H200).
  bool ownsKernel(std::string_view name) const override { return name == "WaitNs"; }
  // Per-kernel ranges: names them. Outside any user scope: the first deep_launches_per_kernel
  // launches of each kernel get a range of their own, closed at the launch's exit (a program with
  // no scopes, as under `gpufl trace`, is measured per launch, as Nsight Compute does).
  void onLaunchEnter(const LaunchSite& launch) override;
  void onLaunchExit(const LaunchSite& launch) override;
  void onScopeBegin(uint32_t path, const char* name) override;
  void onScopeEnd(uint32_t path) override;
  void drain(EventVisitor& out) override;
  void stop() override;

 private:
  struct Group;    // one single-pass config: host object, config image, counter data image
  struct Context;  // per CUDA context: range profiler object, groups
  struct Open {    // the range being collected
    bool active = false;
    uint32_t path = 0;
    std::string name;
    CUcontext context = nullptr;
    size_t group = 0;
    std::thread::id thread;
    std::vector<std::string>
        launches;               // per-kernel ranges: kernels launched on `context`, in order
    bool auto_ranges = false;   // CUPTI makes each launch a range (per-kernel ranges in a scope)
    bool launch_range = false;  // one launch outside any scope: `kernel`, `correlation_id`
    std::string kernel;
    uint32_t correlation_id = 0;
    bool closing = false;      // a thread waits (unlocked) for the context before closing
    bool end_pending = false;  // ended while a stream capture was open, or while its kernels
                               // still ran (overran): closed at a later hook
    bool overran = false;      // its kernels still ran kLaunchPathWait after its end: kept open
    int launches_inside = 0;   // launches while overran: its counters then are not its own
  };
  using RatioParts = std::map<std::string, double>;  // latest value of each ratio counter

  Context* contextLocked(CUcontext handle);
  bool setUpLocked(Context& c, uint32_t device);
  // Opens a range on `context` (the current one); false when none could be opened.
  bool beginLocked(CUcontext context, uint32_t path, const char* name, bool launch_range,
                   const char* kernel, uint32_t correlation_id);
  // Ends the open range; keep: evaluate and queue its counters. Its kernels must have finished.
  void closeLocked(bool keep);
  // Waits for the range's context with mutex_ released (never a wait under a lock that launch
  // callbacks take), then closes it; while a capture is open, marks it end_pending instead.
  // The wait is bounded (`limit`): a kernel of the range may wait for what its thread does after
  // the launch returns; then the range stays open (overran) and a later hook closes it.
  void finishUnlocked(std::unique_lock<std::mutex>& lock, bool keep,
                      std::chrono::milliseconds limit = kLaunchPathWait);
  // Evaluates range `index` of `group`'s decoded counter data into a record (kernel: its range name
  // when ranges are per kernel); false when CUPTI fails (`call` names the failing function).
  bool evaluateRangeLocked(const Group& group, size_t index, const Open& open, RangeCounters* rc,
                           CUptiResult* r, const char** call);
  void addRatiosLocked(const std::string& chip, RatioParts& parts, RangeCounters& rc) const;
  void fail(const std::string& reason, CUptiResult r);

  EngineContext ctx_;
  std::vector<std::string> wanted_;
  std::atomic<bool> started_{false};
  std::mutex mutex_;
  std::map<CUcontext, std::unique_ptr<Context>> contexts_;
  std::map<std::string, RangeMetricPlan> plans_;  // by chip
  uint64_t ranges_begun_ = 0;
  uint64_t phase_ = 16;  // ranges per metric group before the next group's turn (GPUFL_RANGE_PHASE)
  bool per_kernel_ = false;  // GPUFL_RANGE_PER_KERNEL: auto ranges, one per kernel launch
  size_t max_ranges_ =
      2;  // per Start/Stop: 2 for a scope range, GPUFL_RANGE_MAX_KERNELS per kernel
  // Latest part/rest values per scope path (and kernel, per-kernel ranges).
  std::map<std::pair<uint32_t, std::string>, RatioParts> ratio_parts_;
  uint64_t kernels_without_range_ = 0;  // per-kernel mode: scopes that reached max_ranges_
  Open open_;
  std::vector<RangeCounters> pending_;
  uint64_t skipped_ = 0;          // scopes not profiled because another range was open
  uint64_t skipped_capture_ = 0;  // scopes not profiled because a stream capture was open
  uint64_t discarded_ = 0;        // overran ranges that other launches ran inside (not written)
  // Launches outside scopes measured, per kernel. Transparent comparison: a launch of a kernel that
  // has had its ranges is looked up without building a string (no allocation on the app thread).
  std::map<std::string, int, std::less<>> launch_ranges_;
  uint64_t launch_ranges_total_ = 0;
  std::set<std::string> noted_;
};

}  // namespace gpufl::cuda
