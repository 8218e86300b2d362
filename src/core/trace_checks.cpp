#include "core/trace_checks.hpp"

#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace gpufl::core {
namespace {

int64_t magnitude(int64_t v) {
  return v < 0 ? -v : v;
}

}  // namespace

const char* traceViolationName(TraceViolation v) {
  switch (v) {
    case TraceViolation::ZeroTime:
      return "zero_time";
    case TraceViolation::Reversed:
      return "reversed";
    case TraceViolation::BeforeLaunch:
      return "before_launch";
    case TraceViolation::InFuture:
      return "in_future";
    case TraceViolation::ImplausibleDuration:
      return "implausible_duration";
    case TraceViolation::CorrelationOrder:
      return "correlation_order";
    case TraceViolation::ClockStep:
      return "clock_step";
    case TraceViolation::ClockDrift:
      break;
  }
  return "clock_drift";
}

TraceCheckLimits defaultTraceCheckLimits(int64_t session_start_ns) {
  TraceCheckLimits limits;
  limits.session_start_ns = session_start_ns;
  timespec res{};
  if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0) {
    const int64_t ns = int64_t{res.tv_sec} * 1'000'000'000 + res.tv_nsec;
    limits.launch_slack_ns = std::max<int64_t>(ns, 1'000'000);
  }
  return limits;
}

double ClockWatch::driftPpm() const {
  const int64_t elapsed = last_host_ns - first_host_ns;
  if (samples < 2 || elapsed <= 0) return 0;
  return static_cast<double>(driftNs()) / static_cast<double>(elapsed) * 1e6;
}

uint64_t TraceCheckState::violations() const {
  uint64_t n = 0;
  for (const TraceCheckKind& k : kinds) n += k.count;
  return n;
}

TraceChecker::TraceChecker(const TraceCheckLimits& limits, ClockMode mode) : limits_(limits) {
  state_.clock.mode = mode;
}

void TraceChecker::violation(TraceViolation kind, const CheckedRecord& r, int64_t now_ns,
                             int64_t reference_ns, int64_t offset_ns) {
  TraceCheckKind& k = state_.kinds[static_cast<size_t>(kind)];
  if (k.count++ == 0) k.first_ns = now_ns;
  k.last_ns = now_ns;
  if (k.examples == TraceCheckKind::kExamples) return;
  TraceCheckExample& e = k.example[k.examples++];
  e.kind = kind;
  e.seen_ns = now_ns;
  e.is_copy = r.is_copy;
  e.correlation_id = r.correlation_id;
  e.start_ns = r.start_ns;
  e.end_ns = r.end_ns;
  e.bytes = r.bytes;
  e.tid = r.tid;
  e.reference_ns = reference_ns;
  e.offset_ns = offset_ns;
}

bool TraceChecker::check(const CheckedRecord& r, int64_t now_ns) {
  ++state_.records;
  if (r.start_ns == 0 || r.end_ns == 0) {
    violation(TraceViolation::ZeroTime, r, now_ns, 0);
    return false;
  }
  if (r.end_ns < r.start_ns) {
    violation(TraceViolation::Reversed, r, now_ns, 0);
    return false;
  }
  if (r.launch_ns > 0 && r.start_ns + limits_.launch_slack_ns < r.launch_ns)
    violation(TraceViolation::BeforeLaunch, r, now_ns, r.launch_ns);
  if (r.end_ns > now_ns + limits_.future_slack_ns)
    violation(TraceViolation::InFuture, r, now_ns, now_ns);
  const int64_t duration = r.end_ns - r.start_ns;
  if (!r.is_copy) {
    const int64_t traced = now_ns - limits_.session_start_ns;
    if (limits_.session_start_ns > 0 && duration > traced + limits_.future_slack_ns)
      violation(TraceViolation::ImplausibleDuration, r, now_ns, traced);
  } else if (limits_.max_copy_gbps > 0 && r.bytes >= limits_.min_copy_bytes &&
             static_cast<double>(r.bytes) >
                 limits_.max_copy_gbps * static_cast<double>(std::max<int64_t>(duration, 1))) {
    // reference: the least time a copy of this size can take
    violation(TraceViolation::ImplausibleDuration, r, now_ns,
              static_cast<int64_t>(static_cast<double>(r.bytes) / limits_.max_copy_gbps));
  }
  if (r.tid != 0 && r.launch_ns > 0 && r.correlation_id != 0) checkOrder(r, now_ns);
  return true;
}

// Records of one thread arrive out of launch order (streams finish out of order, graph kernels
// share their launch's id), so ids are compared with launch times: on one thread the coarse clock
// never goes back, so an id above the highest seen must not have launched before it, and one below
// must not have launched after it. Either means the ids wrapped (CUPTI's are 32 bits) or a record
// was joined to the wrong launch; the thread then starts afresh from this record, so one
// discontinuity counts about once.
void TraceChecker::checkOrder(const CheckedRecord& r, int64_t now_ns) {
  ThreadOrder& t = threads_[(r.tid * 2654435761u) % kThreads];
  if (t.tid != r.tid) {
    t = {r.tid, r.correlation_id, r.launch_ns};
    return;
  }
  const bool later_id_earlier_launch =
      r.correlation_id > t.max_correlation && r.launch_ns < t.launch_ns;
  const bool earlier_id_later_launch =
      r.correlation_id < t.max_correlation && r.launch_ns > t.launch_ns;
  if (later_id_earlier_launch || earlier_id_later_launch) {
    violation(TraceViolation::CorrelationOrder, r, now_ns, t.launch_ns);
    t.max_correlation = r.correlation_id;
    t.launch_ns = r.launch_ns;
  } else if (r.correlation_id > t.max_correlation) {
    t.max_correlation = r.correlation_id;
    t.launch_ns = r.launch_ns;
  }
}

int64_t TraceChecker::clockSample(int64_t host_before_ns, int64_t host_after_ns, int64_t cupti_ns) {
  ClockWatch& c = state_.clock;
  const int64_t host = host_before_ns + (host_after_ns - host_before_ns) / 2;
  const int64_t offset = host - cupti_ns;
  if (c.samples++ == 0) {
    c.first_offset_ns = c.last_offset_ns = offset;
    c.first_host_ns = c.last_host_ns = host;
    if (c.mode == ClockMode::Offset) {
      c.applied_ns = offset;
    } else {
      // With the timestamp callback, cuptiGetTimestamp should read gpufl's clock; if it does not,
      // it reads CUPTI's own (CLOCK_REALTIME), which the records do not use.
      c.follows = magnitude(offset) <= limits_.clock_step_ns;
      c.applied_ns = 0;
    }
    c.first_applied_ns = c.applied_ns;
    return c.applied_ns;
  }
  const int64_t step = offset - c.last_offset_ns;
  const int64_t previous = c.last_offset_ns;
  c.last_offset_ns = offset;
  c.last_host_ns = host;
  if (c.mode == ClockMode::Callback && !c.follows) return c.applied_ns;
  c.max_step_ns = std::max(c.max_step_ns, magnitude(step));
  const CheckedRecord none;
  if (magnitude(step) > limits_.clock_step_ns)
    violation(TraceViolation::ClockStep, none, host, previous, offset);
  const int64_t drift = offset - c.first_offset_ns;
  if (magnitude(drift) > limits_.clock_drift_ns) {
    if (!drift_flagged_)
      violation(TraceViolation::ClockDrift, none, host, c.first_offset_ns, offset);
    drift_flagged_ = true;
  } else if (magnitude(drift) <= limits_.clock_drift_ns / 2) {
    drift_flagged_ = false;  // back within tolerance: a later excursion counts again
  }
  if (c.mode == ClockMode::Offset)
    c.applied_ns = offset;
  else
    c.applied_ns = magnitude(offset) > limits_.clock_step_ns ? offset : 0;
  return c.applied_ns;
}

void reportChecks(const TraceCheckState& state, Health& health) {
  health.checked = state.records;
  for (size_t i = 0; i < kTraceViolationKinds; ++i) {
    const TraceCheckKind& k = state.kinds[i];
    if (k.count == 0) continue;
    const char* name = traceViolationName(static_cast<TraceViolation>(i));
    health.violations[name] = k.count;
    health.violations_since_ns[name] = k.first_ns;
    for (size_t j = 0; j < k.examples; ++j) {
      const TraceCheckExample& e = k.example[j];
      const bool clock =
          e.kind == TraceViolation::ClockStep || e.kind == TraceViolation::ClockDrift;
      HealthExample out;
      out.kind = name;
      out.record = clock ? "clock" : e.is_copy ? "copy" : "kernel";
      out.seen_ns = e.seen_ns;
      out.correlation_id = e.correlation_id;
      out.start_ns = e.start_ns;
      out.end_ns = e.end_ns;
      out.bytes = e.bytes;
      out.tid = e.tid;
      out.reference_ns = e.reference_ns;
      out.offset_ns = e.offset_ns;
      health.examples.push_back(std::move(out));
    }
  }
  const ClockWatch& c = state.clock;
  const bool watched = c.samples > 0 && (c.mode == ClockMode::Offset || c.follows);
  health.clock_mode = !watched ? "unwatched" : c.mode == ClockMode::Offset ? "offset" : "callback";
  if (watched) {
    health.clock_offset_ns = c.last_offset_ns;
    health.clock_drift_ns = c.driftNs();
    health.clock_correction_ns = c.correctionNs();
  }
}

}  // namespace gpufl::core
