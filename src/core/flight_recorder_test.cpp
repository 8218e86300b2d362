#include "core/flight_recorder.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace gpufl::core {
namespace {

constexpr uint64_t kCtx = 0x1000, kOtherCtx = 0x2000, kStreamA = 0xa0, kStreamB = 0xb0,
                   kStreamC = 0xc0;

void launchKernel(FlightRecorder& f, uint32_t corr, uint64_t stream, uint64_t ctx = kCtx,
                  const char* name = "_Z6kernelv") {
  LaunchSlot s;
  s.correlation_id = corr;
  s.kind = LaunchKind::Kernel;
  s.stream = stream;
  s.context = ctx;
  s.launch_ns = corr * 1000;
  s.tid = 77;
  s.name = name;
  f.launches().put(s);
}

IncidentTrigger cudaError(uint64_t ctx, int code = 700) {
  IncidentTrigger t;
  t.kind = IncidentKind::CudaError;
  t.api = "cudaDeviceSynchronize";
  t.error_name = "cudaErrorIllegalAddress";
  t.error_code = code;
  t.has_error_code = true;
  t.context = ctx;
  t.ts_ns = 5'000'000;
  return t;
}

TEST(FlightRecorder, ACudaErrorNamesTheLaunchesNoSynchronizeProvedFinished) {
  FlightRecorder f;
  launchKernel(f, 10, kStreamA);
  launchKernel(f, 11, kStreamA);
  f.synchronized(kCtx, 0, /*whole_context=*/true, 12);  // 10 and 11 finished
  launchKernel(f, 13, kStreamA, kCtx, "_Z3badPi");
  launchKernel(f, 14, kStreamB);
  launchKernel(f, 15, kStreamC, kOtherCtx);   // another context: not a candidate
  f.synchronized(kCtx, kStreamB, false, 16);  // stream B's 14 finished too
  ASSERT_TRUE(f.trigger(cudaError(kCtx)));
  std::vector<Incident> incidents = f.takeIncidents("abcd");
  ASSERT_EQ(incidents.size(), 1u);
  const Incident& i = incidents[0];
  EXPECT_EQ(i.kind, "cuda_error");
  EXPECT_EQ(i.sid, "abcd");
  EXPECT_EQ(i.error_code, 700);
  // No record had arrived, but synchronizes proved 10, 11 and 14 finished: 13 and 15 are in flight.
  EXPECT_EQ(i.in_flight_count, 2u);
  ASSERT_EQ(i.in_flight.size(), 2u);
  size_t suspects = 0;
  for (const InFlightLaunch& l : i.in_flight) {
    if (!l.suspect) continue;
    ++suspects;
    EXPECT_EQ(l.correlation_id, 13u);
    EXPECT_EQ(l.name, "_Z3badPi");
    EXPECT_EQ(l.stream_handle, kStreamA);
    EXPECT_EQ(l.tid, 77);
  }
  EXPECT_EQ(suspects, 1u);
  EXPECT_EQ(i.attribution.rfind("exact", 0), 0u) << i.attribution;
  // The same error on the same context again is the same incident.
  EXPECT_FALSE(f.trigger(cudaError(kCtx)));
  EXPECT_EQ(f.suppressed(), 1u);
  EXPECT_TRUE(f.takeIncidents("abcd").empty());
}

TEST(FlightRecorder, SeveralCandidatesAreAllNamedInLaunchOrder) {
  FlightRecorder f;
  for (uint32_t corr = 1; corr <= 4; ++corr) launchKernel(f, corr, kStreamA);
  f.launches().complete(1);  // its record arrived
  ASSERT_TRUE(f.trigger(cudaError(kCtx)));
  const Incident i = f.takeIncidents("s")[0];
  ASSERT_EQ(i.in_flight.size(), 3u);
  EXPECT_EQ(i.in_flight[0].correlation_id, 2u);
  for (const InFlightLaunch& l : i.in_flight) EXPECT_TRUE(l.suspect);
  EXPECT_NE(i.attribution.find("one of 3"), std::string::npos) << i.attribution;
}

TEST(FlightRecorder, OutOfMemoryIsRecordedOncePerTenSeconds) {
  FlightRecorder f;
  IncidentTrigger t;
  t.kind = IncidentKind::OutOfMemory;
  t.api = "cudaMalloc";
  t.requested_bytes = 1ull << 40;
  t.free_bytes = 1ull << 30;
  t.total_bytes = 80ull << 30;
  t.ts_ns = 1'000'000'000;
  EXPECT_TRUE(f.trigger(t));
  t.ts_ns += 1'000'000'000;
  EXPECT_FALSE(f.trigger(t));
  t.ts_ns += FlightRecorder::kOomRepeatNs;
  EXPECT_TRUE(f.trigger(t));
  std::vector<Incident> incidents = f.takeIncidents("s");
  ASSERT_EQ(incidents.size(), 2u);
  EXPECT_EQ(incidents[0].kind, "out_of_memory");
  EXPECT_EQ(incidents[0].requested_bytes, 1ull << 40);
  EXPECT_EQ(incidents[0].free_bytes, 1ull << 30);
  EXPECT_EQ(incidents[0].total_bytes, 80ull << 30);
}

TEST(FlightRecorder, TheWatchdogSeesAThreadWaitingTooLongOncePerState) {
  FlightRecorder f;
  constexpr int64_t kSecond = 1'000'000'000;
  f.startWatchdog(
      5 * kSecond, true, [] { return int64_t{0}; }, nullptr);  // clock driven below
  f.stopWatchdog();  // the tests call checkHang themselves
  launchKernel(f, 21, kStreamA, kCtx, "_Z4spinPVi");
  launchKernel(f, 22, kStreamA, kCtx, "_Z5afterv");
  f.waitBegins("cudaStreamSynchronize", kStreamA, 3, 1 * kSecond);
  EXPECT_FALSE(f.checkHang(4 * kSecond));
  EXPECT_TRUE(f.checkHang(7 * kSecond));
  EXPECT_FALSE(f.checkHang(8 * kSecond));  // the same state: said once
  std::vector<Incident> incidents = f.takeIncidents("s");
  ASSERT_EQ(incidents.size(), 1u);
  const Incident& i = incidents[0];
  EXPECT_EQ(i.kind, "hang");
  EXPECT_EQ(i.api, "cudaStreamSynchronize");
  ASSERT_EQ(i.blocked.size(), 1u);
  EXPECT_EQ(i.blocked[0].api, "cudaStreamSynchronize");
  EXPECT_EQ(i.blocked[0].stream_handle, kStreamA);
  EXPECT_EQ(i.blocked[0].scope_path, 3u);
  ASSERT_EQ(i.in_flight.size(), 2u);
  EXPECT_TRUE(i.in_flight[0].suspect);  // the oldest of its stream: the one running
  EXPECT_FALSE(i.in_flight[1].suspect);
  f.waitEnds();
  // A new state: the wait ended, the launches are still unfinished and no record arrived.
  EXPECT_TRUE(f.checkHang(20 * kSecond));
}

TEST(FlightRecorder, PendingLaunchesWithNoRecordArrivingAreAHang) {
  FlightRecorder f;
  constexpr int64_t kSecond = 1'000'000'000;
  f.startWatchdog(
      5 * kSecond, true, [] { return int64_t{0}; }, nullptr);
  f.stopWatchdog();
  launchKernel(f, 31, kStreamB);  // launch_ns = 31 us
  f.noteArrival(1 * kSecond);
  EXPECT_FALSE(f.checkHang(5 * kSecond));
  EXPECT_TRUE(f.checkHang(7 * kSecond));
  const Incident i = f.takeIncidents("s")[0];
  EXPECT_TRUE(i.blocked.empty());
  ASSERT_EQ(i.in_flight.size(), 1u);
  EXPECT_TRUE(i.in_flight[0].suspect);
}

// A kernel whose record came without times (CUPTI's forced flush of a running kernel) stays in
// flight; once a synchronize proves it finished it is no longer a hang's suspect, nor the oldest
// unfinished launch.
TEST(FlightRecorder, ALaunchASynchronizeProvedFinishedIsNoLongerASuspect) {
  FlightRecorder f;
  constexpr int64_t kSecond = 1'000'000'000;
  f.startWatchdog(
      5 * kSecond, true, [] { return int64_t{0}; }, nullptr);
  f.stopWatchdog();
  launchKernel(f, 41, kStreamA);  // its record came untimed: not completed
  EXPECT_EQ(f.oldestUnfinishedLaunchNs(), 41 * 1000);
  f.synchronized(kCtx, kStreamA, false, 42);  // the stream synchronized after it
  EXPECT_EQ(f.oldestUnfinishedLaunchNs(), INT64_MAX);
  launchKernel(f, 43, kStreamB);  // still running on another stream
  EXPECT_EQ(f.oldestUnfinishedLaunchNs(), 43 * 1000);
  f.waitBegins("cudaStreamSynchronize", kStreamB, 0, 1 * kSecond);
  ASSERT_TRUE(f.checkHang(7 * kSecond));
  const Incident i = f.takeIncidents("s")[0];
  ASSERT_EQ(i.in_flight.size(), 1u);  // 41, proven finished, is not in flight
  EXPECT_EQ(i.in_flight[0].correlation_id, 43u);
  EXPECT_TRUE(i.in_flight[0].suspect);  // the one running
  f.waitEnds();
}

// The driver's Xid names a GPU, not a launch: every kernel in flight is a suspect; the driver
// repeats an Xid, which is recorded once per GPU.
TEST(FlightRecorder, AnXidSuspectsEveryKernelInFlightOncePerGpuAndXid) {
  FlightRecorder f;
  launchKernel(f, 51, kStreamA);
  launchKernel(f, 52, kStreamB, kOtherCtx);
  IncidentTrigger t;
  t.kind = IncidentKind::Xid;
  t.error_name = "Xid";
  t.error_code = 31;
  t.has_error_code = true;
  t.gpu = 0;
  ASSERT_TRUE(f.trigger(t));
  EXPECT_FALSE(f.trigger(t));  // the same Xid on the same GPU again
  t.gpu = 1;
  EXPECT_TRUE(f.trigger(t));  // another GPU
  std::vector<Incident> incidents = f.takeIncidents("s");
  ASSERT_EQ(incidents.size(), 2u);
  EXPECT_EQ(incidents[0].kind, "xid");
  EXPECT_EQ(incidents[0].error_code, 31);
  ASSERT_EQ(incidents[0].in_flight.size(), 2u);
  EXPECT_TRUE(incidents[0].in_flight[0].suspect);
  EXPECT_TRUE(incidents[0].in_flight[1].suspect);
  EXPECT_NE(incidents[0].attribution.find("driver does not say which"), std::string::npos);
}

TEST(FlightRecorder, AtMostKMaxIncidentsPerSessionTheRestCounted) {
  FlightRecorder f;
  IncidentTrigger t;
  t.kind = IncidentKind::Dump;
  size_t taken = 0;
  for (size_t i = 0; i < FlightRecorder::kMaxIncidents + 5; ++i) {
    f.trigger(t);
    taken += f.takeIncidents("s").size();
  }
  EXPECT_EQ(taken, FlightRecorder::kMaxIncidents);
  EXPECT_EQ(f.suppressed(), 5u);
}

}  // namespace
}  // namespace gpufl::core
