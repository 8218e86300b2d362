// The record checks on the writer thread's real path: launch callbacks and CUPTI activity buffers
// built in host memory (cuptiActivityGetNextRecord walks them without a GPU), handed over as CUPTI
// would and drained. A kernel without times, one without an end and one ending before it starts
// are left out and counted, one starting before its launch is kept and counted, a copy without
// times is left out;
// and what gpufl holds stays flat while a million kernel records go through (the pool keeps at most
// its idle buffers, nothing grows per kernel).
#include <cupti.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/flight_recorder.hpp"
#include "core/thread_buffer.hpp"
#include "cuda/cupti_loader.hpp"
#include "cuda/cupti_tracer.hpp"

namespace gpufl::cuda {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Counts what the drain hands on.
struct Counter : EventVisitor {
  uint64_t kernels = 0, copies = 0, defs = 0;
  int64_t last_start = 0;
  void onKernel(const KernelEvent& e) override {
    ++kernels;
    last_start = e.start_ns;
  }
  void onKernelDef(const KernelDef&) override { ++defs; }
  void onMemcpy(const MemcpyEvent&) override { ++copies; }
};

uint64_t residentBytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

class TracerChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why; !cuptiLibrary().has(CuptiFeature::Tracing, &why))
      GTEST_SKIP() << "libcupti is needed to walk activity buffers: " << why;
    core::ThreadBufferRegistry::global().attach();
    core::setRecordingGeneration(0x7ffd0000u);
    tracer_.setFlightRecorder(&flight_, nullptr);
    core::TraceCheckLimits limits = core::defaultTraceCheckLimits(core::monotonicNs() - 1'000'000);
    tracer_.setCheckLimits(limits);
  }
  void TearDown() override {
    core::setRecordingGeneration(0);
    core::ThreadBufferRegistry::global().drainAll(
        [](const core::Record&, const core::ThreadInfo&) {});
    core::ThreadBufferRegistry::global().detach();
  }
  // A kernel launch call seen by the launch callback (enter and exit); returns its correlation id.
  uint32_t launch() {
    CUpti_CallbackData cb{};
    cb.correlationId = next_corr_++;
    cb.functionName = "cudaLaunchKernel";
    cb.symbolName = "_Z4tinyv";
    cb.callbackSite = CUPTI_API_ENTER;
    tracer_.onApi(&cb, true, CuptiTracer::ApiKind::KernelLaunch);
    cb.callbackSite = CUPTI_API_EXIT;
    tracer_.onApi(&cb, false, CuptiTracer::ApiKind::KernelLaunch);
    return cb.correlationId;
  }
  static CUpti_ActivityKernel10 kernel(uint32_t corr, uint64_t start, uint64_t end) {
    CUpti_ActivityKernel10 k;
    std::memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "_Z4tinyv";
    k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
    k.correlationId = corr;
    k.start = start;
    k.end = end;
    return k;
  }
  // Records into one buffer taken from the tracer's pool, completed as CUPTI would.
  template <typename R>
  void deliver(const std::vector<R>& records) {
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    tracer_.onBufferRequested(&buffer, &size, &max_records);
    ASSERT_NE(buffer, nullptr);
    ASSERT_LE(records.size() * sizeof(R), size);
    std::memcpy(buffer, records.data(), records.size() * sizeof(R));
    tracer_.onBufferCompleted(nullptr, 0, buffer, records.size() * sizeof(R));
  }

  core::FlightRecorder flight_;
  CuptiTracer tracer_;
  Counter out_;
  uint32_t next_corr_ = 1;
};

TEST_F(TracerChecks, BadTimesAreCountedAndUnusableOnesLeftOut) {
  const uint32_t good = launch(), zero = launch(), reversed = launch(), early = launch(),
                 half = launch();
  const auto now = static_cast<uint64_t>(core::monotonicNs());
  deliver(std::vector<CUpti_ActivityKernel10>{
      kernel(good, now, now + 1000), kernel(zero, 0, 0), kernel(reversed, now + 2000, now + 1000),
      kernel(early, now - 500'000'000, now - 499'000'000), kernel(half, now, 0)});
  CUpti_ActivityMemcpy6 copy;
  std::memset(&copy, 0, sizeof copy);
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.bytes = 4096;
  deliver(std::vector<CUpti_ActivityMemcpy6>{copy});  // no times
  tracer_.drain(out_, "sid");
  EXPECT_EQ(out_.kernels, 2u);  // the good one and the early one, kept
  EXPECT_EQ(out_.copies, 0u);
  const TracerStats s = tracer_.stats();
  EXPECT_EQ(s.untimed_kernels, 1u);
  // The reversed kernel, the one without an end, the copy without times.
  EXPECT_EQ(s.invalid_times, 3u);
  const core::TraceCheckState& c = s.checks;
  EXPECT_EQ(c.records, 6u);
  EXPECT_EQ(c.of(core::TraceViolation::ZeroTime).count, 3u);
  EXPECT_EQ(c.of(core::TraceViolation::Reversed).count, 1u);
  EXPECT_EQ(c.of(core::TraceViolation::BeforeLaunch).count, 1u);
  EXPECT_EQ(c.of(core::TraceViolation::BeforeLaunch).example[0].correlation_id, early);
  EXPECT_NE(s.cupti_tid, 0);  // the thread that completed the buffers: this one
}

TEST_F(TracerChecks, WhatGpuflHoldsStaysFlatWhileAMillionKernelRecordsGoThrough) {
  if (kSanitized)
    GTEST_SKIP() << "AddressSanitizer's quarantine and shadow memory move the figures";
  constexpr size_t kPerBuffer = 16'000, kBuffers = 64;  // 1,024,000 kernels, ~3.5 MB a buffer
  std::vector<CUpti_ActivityKernel10> records(kPerBuffer);
  uint64_t heap_at_tenth = 0, rss_at_quarter = 0;
  for (size_t b = 0; b < kBuffers; ++b) {
    for (size_t i = 0; i < kPerBuffer; ++i) {
      const uint32_t corr = launch();
      const auto now = static_cast<uint64_t>(core::monotonicNs());
      records[i] = kernel(corr, now, now + 500);
    }
    deliver(records);
    tracer_.drain(out_, "sid");
    if (b == kBuffers / 10) heap_at_tenth = mallinfo2().uordblks;
    // By then every slot of the launch table (256 Ki correlation ids, 16 MiB) has been touched.
    if (b == kBuffers / 4) rss_at_quarter = residentBytes();
  }
  EXPECT_EQ(out_.kernels, kPerBuffer * kBuffers);
  EXPECT_EQ(out_.defs, 1u);
  const TracerStats s = tracer_.stats();
  EXPECT_EQ(s.checks.violations(), 0u);
  EXPECT_LE(s.buffers_held, ActivityBufferPool::kDefaultKeepFree);
  EXPECT_EQ(s.buffers_pending, 0u);
  // Heap in use and resident memory from the first tenth (quarter) to the end: flat.
  const auto heap_end = static_cast<int64_t>(mallinfo2().uordblks);
  EXPECT_LT(heap_end - static_cast<int64_t>(heap_at_tenth), 256 << 10)
      << "heap grew from " << heap_at_tenth << " to " << heap_end << " bytes";
  const auto rss_end = static_cast<int64_t>(residentBytes());
  EXPECT_LT(rss_end - static_cast<int64_t>(rss_at_quarter), 4 << 20)
      << "resident memory grew from " << rss_at_quarter << " to " << rss_end << " bytes";
}

}  // namespace
}  // namespace gpufl::cuda
