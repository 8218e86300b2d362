// The record checks fed hand-made records and clock samples: zero and reversed times, a kernel
// before its launch, one in the future, implausible durations, correlation ids against launch
// order per thread, a clock that steps and one that drifts; counts, first/last times and examples
// by kind. trace_checks_alloc_test counts allocations.
#include "core/trace_checks.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpufl::core {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kStart = 1'000 * kMs;  // the session began at 1 s

TraceCheckLimits limits() {
  TraceCheckLimits l;
  l.session_start_ns = kStart;
  l.launch_slack_ns = 4 * kMs;
  return l;
}

CheckedRecord kernel(uint64_t corr, int64_t start, int64_t end, int64_t launch = 0,
                     uint32_t tid = 0) {
  CheckedRecord r;
  r.correlation_id = corr;
  r.start_ns = start;
  r.end_ns = end;
  r.launch_ns = launch;
  r.tid = tid;
  return r;
}

uint64_t count(const TraceChecker& c, TraceViolation v) {
  return c.state().of(v).count;
}

TEST(TraceChecks, AGoodRecordCountsNothing) {
  TraceChecker c(limits());
  EXPECT_TRUE(c.check(kernel(1, 2'000 * kMs, 2'001 * kMs, 1'999 * kMs, 7), 3'000 * kMs));
  EXPECT_EQ(c.state().records, 1u);
  EXPECT_EQ(c.state().violations(), 0u);
}

TEST(TraceChecks, ZeroAndReversedTimesAreCountedAndTheRecordIsUnusable) {
  TraceChecker c(limits());
  EXPECT_FALSE(c.check(kernel(1, 0, 0), 3'000 * kMs));
  EXPECT_FALSE(c.check(kernel(2, 2'000 * kMs, 0), 3'000 * kMs));
  EXPECT_FALSE(c.check(kernel(3, 2'000 * kMs, 1'999 * kMs), 3'100 * kMs));
  EXPECT_EQ(count(c, TraceViolation::ZeroTime), 2u);
  EXPECT_EQ(count(c, TraceViolation::Reversed), 1u);
  const TraceCheckKind& zero = c.state().of(TraceViolation::ZeroTime);
  EXPECT_EQ(zero.first_ns, 3'000 * kMs);
  ASSERT_EQ(zero.examples, 2u);
  EXPECT_EQ(zero.example[1].correlation_id, 2u);
  const TraceCheckExample& rev = c.state().of(TraceViolation::Reversed).example[0];
  EXPECT_EQ(rev.start_ns, 2'000 * kMs);
  EXPECT_EQ(rev.end_ns, 1'999 * kMs);
  EXPECT_EQ(rev.seen_ns, 3'100 * kMs);
}

TEST(TraceChecks, AStartBeforeItsLaunchCountsBeyondTheCoarseClocksResolution) {
  TraceChecker c(limits());
  // 3 ms before the coarse launch time: within the 4 ms slack.
  EXPECT_TRUE(c.check(kernel(1, 1'997 * kMs, 1'998 * kMs, 2'000 * kMs), 3'000 * kMs));
  EXPECT_EQ(count(c, TraceViolation::BeforeLaunch), 0u);
  // 5 ms before: the record is kept, the violation counted with the launch time as reference.
  EXPECT_TRUE(c.check(kernel(2, 1'995 * kMs, 1'996 * kMs, 2'000 * kMs), 3'000 * kMs));
  ASSERT_EQ(count(c, TraceViolation::BeforeLaunch), 1u);
  EXPECT_EQ(c.state().of(TraceViolation::BeforeLaunch).example[0].reference_ns, 2'000 * kMs);
  // No launch known (the slot was reused): nothing to compare.
  EXPECT_TRUE(c.check(kernel(3, 1'500 * kMs, 1'501 * kMs, 0), 3'000 * kMs));
  EXPECT_EQ(count(c, TraceViolation::BeforeLaunch), 1u);
}

TEST(TraceChecks, TimesShiftedIntoTheFutureOrLongerThanTheSessionAreCounted) {
  TraceChecker c(limits());
  const int64_t now = 3'000 * kMs;
  // The 1e14 ns shift peers saw: ends about 27 hours after now.
  EXPECT_TRUE(c.check(kernel(1, 100'000'000 * kMs, 100'000'001 * kMs), now));
  EXPECT_EQ(count(c, TraceViolation::InFuture), 1u);
  EXPECT_EQ(c.state().of(TraceViolation::InFuture).example[0].reference_ns, now);
  // 40 ms after now: within the slack.
  EXPECT_TRUE(c.check(kernel(2, now, now + 40 * kMs), now));
  EXPECT_EQ(count(c, TraceViolation::InFuture), 1u);
  // A kernel of 2.4 s in a session traced for 2 s.
  EXPECT_TRUE(c.check(kernel(3, 500 * kMs, 2'900 * kMs), now));
  EXPECT_EQ(count(c, TraceViolation::ImplausibleDuration), 1u);
  EXPECT_EQ(c.state().of(TraceViolation::ImplausibleDuration).example[0].reference_ns, 2'000 * kMs);
}

TEST(TraceChecks, ACopyFasterThanAnyLinkIsImplausibleASmallOneIsNotJudged) {
  TraceCheckLimits l = limits();
  l.max_copy_gbps = 10'000;  // 10 TB/s
  TraceChecker c(l);
  CheckedRecord copy = kernel(1, 2'000 * kMs, 2'000 * kMs + 1'000);
  copy.is_copy = true;
  copy.bytes = 1ull << 30;  // 1 GiB in 1 us: 1 PB/s
  EXPECT_TRUE(c.check(copy, 3'000 * kMs));
  copy.bytes = 4096;  // too small to judge (timer resolution)
  EXPECT_TRUE(c.check(copy, 3'000 * kMs));
  copy.bytes = 64ull << 20;  // 64 MiB in 10 ms: 6.7 GB/s
  copy.end_ns = copy.start_ns + 10 * kMs;
  EXPECT_TRUE(c.check(copy, 3'000 * kMs));
  ASSERT_EQ(count(c, TraceViolation::ImplausibleDuration), 1u);
  const TraceCheckExample& e = c.state().of(TraceViolation::ImplausibleDuration).example[0];
  EXPECT_TRUE(e.is_copy);
  EXPECT_EQ(e.bytes, 1ull << 30);
  EXPECT_EQ(e.reference_ns, 107'374);  // the least time 1 GiB takes at 10 TB/s
}

TEST(TraceChecks, CorrelationIdsFollowEachThreadsLaunchOrderWhateverOrderRecordsArriveIn) {
  TraceChecker c(limits());
  const int64_t now = 3'000 * kMs;
  // Thread 7 launched 10 then 11 (same coarse tick) then 12 (next tick); records arrive 12, 10, 11.
  EXPECT_TRUE(c.check(kernel(12, 2'010 * kMs, 2'011 * kMs, 2'004 * kMs, 7), now));
  EXPECT_TRUE(c.check(kernel(10, 2'001 * kMs, 2'002 * kMs, 2'000 * kMs, 7), now));
  EXPECT_TRUE(c.check(kernel(11, 2'003 * kMs, 2'004 * kMs, 2'000 * kMs, 7), now));
  // Another thread's ids interleave with no effect on thread 7.
  EXPECT_TRUE(c.check(kernel(5, 2'020 * kMs, 2'021 * kMs, 2'008 * kMs, 8), now));
  // Graph kernels share their launch's id.
  EXPECT_TRUE(c.check(kernel(12, 2'012 * kMs, 2'013 * kMs, 2'004 * kMs, 7), now));
  EXPECT_EQ(count(c, TraceViolation::CorrelationOrder), 0u);
  // Ids wrapped: thread 7's next launch, 8 ms later, has id 3.
  EXPECT_TRUE(c.check(kernel(3, 2'020 * kMs, 2'021 * kMs, 2'012 * kMs, 7), now));
  EXPECT_EQ(count(c, TraceViolation::CorrelationOrder), 1u);
  EXPECT_EQ(c.state().of(TraceViolation::CorrelationOrder).example[0].reference_ns, 2'004 * kMs);
  // Counted once: the thread goes on from the new ids.
  EXPECT_TRUE(c.check(kernel(4, 2'022 * kMs, 2'023 * kMs, 2'016 * kMs, 7), now));
  EXPECT_EQ(count(c, TraceViolation::CorrelationOrder), 1u);
  // A higher id with an earlier launch than the highest so far: joined to the wrong launch.
  EXPECT_TRUE(c.check(kernel(9, 2'030 * kMs, 2'031 * kMs, 2'001 * kMs, 7), now));
  EXPECT_EQ(count(c, TraceViolation::CorrelationOrder), 2u);
}

TEST(TraceChecks, ExamplesKeepTheFirstFewAndCountsGoOn) {
  TraceChecker c(limits());
  for (int i = 1; i <= 10; ++i) c.check(kernel(i, 0, 0), 2'000 * kMs + i);
  const TraceCheckKind& k = c.state().of(TraceViolation::ZeroTime);
  EXPECT_EQ(k.count, 10u);
  EXPECT_EQ(k.examples, TraceCheckKind::kExamples);
  EXPECT_EQ(k.example[0].correlation_id, 1u);
  EXPECT_EQ(k.example[2].correlation_id, 3u);
  EXPECT_EQ(k.first_ns, 2'000 * kMs + 1);
  EXPECT_EQ(k.last_ns, 2'000 * kMs + 10);
  EXPECT_EQ(c.state().violations(), 10u);
}

TEST(TraceChecks, OffsetModeAppliesEachSampleAndCountsAStepOnce) {
  TraceChecker c(limits(), ClockMode::Offset);
  // CUPTI's clock reads 1e18 while the host reads 5e9 (+ bracket of 200 ns).
  int64_t host = 5'000 * kMs, cupti = 1'000'000'000'000'000'000;
  EXPECT_EQ(c.clockSample(host, host + 200, cupti), host + 100 - cupti);
  for (int i = 0; i < 5; ++i) {
    host += 50 * kMs, cupti += 50 * kMs;
    c.clockSample(host, host + 200, cupti);
  }
  EXPECT_EQ(count(c, TraceViolation::ClockStep), 0u);
  // CLOCK_REALTIME stepped back by 2 s (an NTP step): the offset jumps; records are corrected from
  // the next sample on, and the step is counted.
  host += 50 * kMs, cupti += 50 * kMs - 2'000 * kMs;
  const int64_t applied = c.clockSample(host, host + 200, cupti);
  EXPECT_EQ(applied, host + 100 - cupti);
  EXPECT_EQ(count(c, TraceViolation::ClockStep), 1u);
  EXPECT_EQ(count(c, TraceViolation::ClockDrift), 1u);  // 2 s from the first offset
  const ClockWatch& w = c.state().clock;
  EXPECT_EQ(w.driftNs(), 2'000 * kMs);
  EXPECT_EQ(w.correctionNs(), 2'000 * kMs);
  EXPECT_EQ(w.max_step_ns, 2'000 * kMs);
  const TraceCheckExample& e = c.state().of(TraceViolation::ClockStep).example[0];
  EXPECT_EQ(e.offset_ns - e.reference_ns, 2'000 * kMs);
}

TEST(TraceChecks, ASlowDriftIsCountedOnceWhenItPassesTheToleranceAndMeasuredInPpm) {
  TraceChecker c(limits(), ClockMode::Offset);
  int64_t host = 5'000 * kMs, cupti = 7'000 * kMs;
  c.clockSample(host, host, cupti);
  // CUPTI's clock runs 100 ppm slow: 1 s of host time is 999.9 ms of CUPTI's. 60 samples a second
  // apart: 6 ms of drift in all, past the 5 ms tolerance after 50 s; no single step is a step.
  for (int i = 0; i < 60; ++i) {
    host += 1'000 * kMs;
    cupti += 1'000 * kMs - 100'000;
    c.clockSample(host, host, cupti);
  }
  EXPECT_EQ(count(c, TraceViolation::ClockStep), 0u);
  EXPECT_EQ(count(c, TraceViolation::ClockDrift), 1u);
  const ClockWatch& w = c.state().clock;
  EXPECT_EQ(w.driftNs(), 6 * kMs);
  EXPECT_NEAR(w.driftPpm(), 100.0, 0.01);
  EXPECT_EQ(c.appliedOffsetNs(), host - cupti);  // corrected at every sample
}

TEST(TraceChecks, CallbackModeCorrectsOnlyOnceCuptisClockMovesAwayFromOurs) {
  TraceChecker c(limits(), ClockMode::Callback);
  int64_t host = 5'000 * kMs;
  EXPECT_EQ(c.clockSample(host, host + 400, host + 150), 0);  // 50 ns apart: follows
  EXPECT_TRUE(c.state().clock.follows);
  for (int i = 0; i < 3; ++i) {
    host += 1'000 * kMs;
    EXPECT_EQ(c.clockSample(host, host + 400, host + 100), 0);
  }
  // The callback is registered again elsewhere and CUPTI's times jump by 1e14 ns.
  host += 1'000 * kMs;
  const int64_t shift = 100'000'000'000'000;
  EXPECT_EQ(c.clockSample(host, host, host - shift), shift);
  EXPECT_EQ(count(c, TraceViolation::ClockStep), 1u);
  EXPECT_EQ(c.state().clock.correctionNs(), shift);
}

TEST(TraceChecks, CallbackModeWithoutAFollowingClockComparesNothing) {
  TraceChecker c(limits(), ClockMode::Callback);
  int64_t host = 5'000 * kMs;
  const int64_t realtime = 1'700'000'000'000'000'000;
  c.clockSample(host, host, realtime);
  EXPECT_FALSE(c.state().clock.follows);
  host += 1'000 * kMs;
  EXPECT_EQ(c.clockSample(host, host, realtime + 3'000 * kMs), 0);  // a step of CLOCK_REALTIME
  EXPECT_EQ(c.state().violations(), 0u);
}

TEST(TraceChecks, TheHealthRecordGetsTheKindsSeenTheirExamplesAndTheClock) {
  TraceChecker c(limits(), ClockMode::Offset);
  c.check(kernel(1, 0, 0), 2'000 * kMs);
  CheckedRecord copy = kernel(2, 2'100 * kMs, 2'000 * kMs);
  copy.is_copy = true;
  c.check(copy, 2'200 * kMs);
  c.check(kernel(3, 2'000 * kMs, 2'001 * kMs), 2'300 * kMs);
  c.clockSample(5'000 * kMs, 5'000 * kMs, 1'000 * kMs);
  c.clockSample(6'000 * kMs, 6'000 * kMs, 1'999 * kMs);  // 1 ms of drift: within tolerance
  Health h;
  reportChecks(c.state(), h);
  EXPECT_EQ(h.checked, 3u);
  EXPECT_EQ(h.violations, (std::map<std::string, uint64_t>{{"reversed", 1}, {"zero_time", 1}}));
  EXPECT_EQ(h.violations_since_ns.at("reversed"), 2'200 * kMs);
  ASSERT_EQ(h.examples.size(), 2u);
  EXPECT_EQ(h.examples[0].kind, "zero_time");
  EXPECT_EQ(h.examples[0].record, "kernel");
  EXPECT_EQ(h.examples[1].record, "copy");
  EXPECT_EQ(h.examples[1].start_ns, 2'100 * kMs);
  EXPECT_EQ(h.clock_mode, "offset");
  EXPECT_EQ(h.clock_offset_ns, 4'001 * kMs);
  EXPECT_EQ(h.clock_drift_ns, 1 * kMs);
  EXPECT_EQ(h.clock_correction_ns, 1 * kMs);
  Health none;
  reportChecks(TraceChecker(limits()).state(), none);
  EXPECT_EQ(none.clock_mode, "unwatched");
  EXPECT_FALSE(none.clock_offset_ns.has_value());
  EXPECT_TRUE(none.violations.empty());
}

}  // namespace
}  // namespace gpufl::core
