// Checks of the records gpufl writes, made on the writer thread as each record is decoded: times
// present and in order, a kernel not starting before its own launch call, durations the device can
// have, each launching thread's correlation ids following its launch order, and the GPU-to-host
// clock offset watched for steps and drift (and corrected where it moves). Each violation is
// counted by kind, with when it was first and last seen; the first few of each kind are kept as
// examples.
//
// Pure logic on numbers: src/cuda feeds it decoded CUPTI records (cupti_tracer_drain.cpp), tests
// feed it hand-made ones (trace_checks_test.cpp). All state is fixed-size and set up in the
// constructor: no allocation per record, whatever the number of records or threads.
//
// [writer thread]: one thread uses a TraceChecker; snapshot() copies its state for other readers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/events.hpp"

namespace gpufl::core {

enum class TraceViolation : uint8_t {
  ZeroTime,             // a kernel or copy without a start or an end (0): CUPTI could not time it
  Reversed,             // it ends before it starts
  BeforeLaunch,         // it starts before its own launch call was made
  InFuture,             // it ends after the host's clock when decoded: its times are shifted
  ImplausibleDuration,  // a kernel longer than the traced session so far; a copy faster than a link
  CorrelationOrder,     // a thread's correlation ids do not follow the order of its launches
  ClockStep,            // the GPU-to-host clock offset jumped between two samples
  ClockDrift,           // the offset moved away from its first sample by more than the tolerance
};
inline constexpr size_t kTraceViolationKinds = 8;
// "zero_time", "reversed", "before_launch", "in_future", "implausible_duration",
// "correlation_order", "clock_step", "clock_drift": the keys of the health record's maps.
const char* traceViolationName(TraceViolation v);

// One decoded record, on the session clock (the clock offset already applied).
struct CheckedRecord {
  bool is_copy = false;  // a memcpy or memset; otherwise a kernel
  uint64_t correlation_id = 0;
  int64_t start_ns = 0, end_ns = 0;  // 0: not timed
  uint64_t bytes = 0;                // copies
  int64_t launch_ns = 0;             // when its launch call was made (coarse clock); 0: unknown
  uint32_t tid = 0;                  // the launching thread; 0: unknown
};

struct TraceCheckLimits {
  int64_t session_start_ns = 0;  // no traced record can have run longer than since then
  // The launch time is read from CLOCK_MONOTONIC_COARSE at the call's entry (core/launch_table):
  // it lags the true time by up to that clock's resolution and never leads it, so a start before it
  // is wrong in principle. The slack covers CUPTI's mapping of GPU times onto the host clock;
  // defaultLimits() sets it to the coarse clock's resolution (clock_getres, 4 ms at HZ=250).
  int64_t launch_slack_ns = 4'000'000;
  // A record is decoded after its buffer completed, so it ended before the writer's `now`; the
  // slack covers the same mapping error. The shifts peers saw (about 1e14 ns) are far beyond it.
  int64_t future_slack_ns = 50'000'000;
  // A copy of at least min_copy_bytes moving more than max_copy_gbps (GB/s = bytes/ns) cannot be
  // real: no link of the device is that fast. 0: not checked.
  double max_copy_gbps = 20'000;
  uint64_t min_copy_bytes = 1u << 20;
  // The clock offset: a jump beyond clock_step_ns between two samples is a step; a distance beyond
  // clock_drift_ns from the first sample is drift.
  int64_t clock_step_ns = 1'000'000;
  int64_t clock_drift_ns = 5'000'000;
};

// Limits for a session that began at `session_start_ns`, with the launch slack set to the coarse
// clock's resolution on this machine (at least 1 ms).
TraceCheckLimits defaultTraceCheckLimits(int64_t session_start_ns);

// What was found wrong in one record or clock sample. `reference_ns` depends on the kind: the
// launch time (before_launch; correlation_order: the launch of the thread's highest id so far), the
// host's now (in_future), the session's length so far (a kernel's implausible_duration), the
// offset (clock kinds: offset_ns, the new offset; reference_ns, the previous or first one).
struct TraceCheckExample {
  TraceViolation kind = TraceViolation::ZeroTime;
  int64_t seen_ns = 0;  // host time when found
  bool is_copy = false;
  uint64_t correlation_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint64_t bytes = 0;
  uint32_t tid = 0;
  int64_t reference_ns = 0;
  int64_t offset_ns = 0;
};

// The GPU-to-host clock: how CUPTI's timestamps reach the session clock.
enum class ClockMode : uint8_t {
  Callback,  // CUPTI calls gpufl's clock for each timestamp (the default): records are on it
  Offset,    // CUPTI keeps its own clock; gpufl adds (host - CUPTI) sampled at each drain
};

struct ClockWatch {
  ClockMode mode = ClockMode::Callback;
  // Callback mode only: false when cuptiGetTimestamp does not follow the callback (its first offset
  // was beyond clock_step_ns): there is nothing to compare then, and nothing is counted.
  bool follows = true;
  uint64_t samples = 0;
  int64_t first_offset_ns = 0, last_offset_ns = 0;  // host - CUPTI
  int64_t first_host_ns = 0, last_host_ns = 0;
  int64_t max_step_ns = 0;  // the largest jump between two samples (absolute)
  int64_t applied_ns = 0;   // what is added to activity times now
  int64_t first_applied_ns = 0;
  int64_t driftNs() const { return last_offset_ns - first_offset_ns; }
  // How far the correction moved since the first sample: what gpufl corrected.
  int64_t correctionNs() const { return applied_ns - first_applied_ns; }
  double driftPpm() const;  // drift per elapsed host time, parts per million (0 before 2 samples)
};

struct TraceCheckKind {
  uint64_t count = 0;
  int64_t first_ns = 0, last_ns = 0;  // host time of the first and the latest
  static constexpr size_t kExamples = 3;
  size_t examples = 0;
  std::array<TraceCheckExample, kExamples> example{};
};

struct TraceCheckState {
  uint64_t records = 0;  // records checked (clock samples not included)
  std::array<TraceCheckKind, kTraceViolationKinds> kinds{};
  ClockWatch clock;
  uint64_t violations() const;
  const TraceCheckKind& of(TraceViolation v) const { return kinds[static_cast<size_t>(v)]; }
};

class TraceChecker {
 public:
  explicit TraceChecker(const TraceCheckLimits& limits = {}, ClockMode mode = ClockMode::Callback);

  void setLimits(const TraceCheckLimits& limits) { limits_ = limits; }
  const TraceCheckLimits& limits() const { return limits_; }

  // Checks one record decoded at host time `now_ns`. Returns false when its times cannot be used
  // (zero or reversed): the caller leaves it out of the log. The other violations keep the record.
  bool check(const CheckedRecord& r, int64_t now_ns);

  // One sample of CUPTI's clock against the host's: host_before/host_after bracket the call that
  // returned `cupti_ns`. Returns the offset to add to activity times from now on: in Offset mode
  // the sample's offset; in Callback mode 0 while CUPTI's clock follows gpufl's, and the offset
  // once it has moved away by more than a step (CUPTI's times are then corrected, and ClockWatch
  // says by how much).
  int64_t clockSample(int64_t host_before_ns, int64_t host_after_ns, int64_t cupti_ns);
  int64_t appliedOffsetNs() const { return state_.clock.applied_ns; }

  const TraceCheckState& state() const { return state_; }

 private:
  void violation(TraceViolation kind, const CheckedRecord& r, int64_t now_ns, int64_t reference_ns,
                 int64_t offset_ns = 0);
  void checkOrder(const CheckedRecord& r, int64_t now_ns);

  // The highest correlation id seen so far from each launching thread, with its launch time. A
  // direct-mapped table: a thread whose slot another took starts afresh (it loses history, never
  // counts wrongly).
  struct ThreadOrder {
    uint32_t tid = 0;
    uint64_t max_correlation = 0;
    int64_t launch_ns = 0;
  };
  static constexpr size_t kThreads = 256;

  TraceCheckLimits limits_;
  TraceCheckState state_;
  std::array<ThreadOrder, kThreads> threads_{};
  bool drift_flagged_ = false;
};

// Puts the checks' state into a health record: checked, violations and violations_since_ns by
// kind (only the kinds seen), the examples, and the clock (clock_mode "callback", "offset", or
// "unwatched" when CUPTI's clock does not follow the callback or was never sampled).
void reportChecks(const TraceCheckState& state, Health& health);

}  // namespace gpufl::core
