// The record checks allocate nothing per record or clock sample, violations and examples included:
// heap allocations counted by the preloaded malloc (tests/support; ctest sets LD_PRELOAD).
#include <gtest/gtest.h>

#include "alloc_counter.hpp"
#include "core/trace_checks.hpp"

namespace gpufl::core {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(TraceChecks, NoAllocationPerRecordOrSample) {
  const AllocationCounter counter;
  ASSERT_TRUE(counter.loaded()) << "run through ctest (LD_PRELOAD of the allocation counter)";
  TraceCheckLimits limits;
  limits.session_start_ns = 1'000 * kMs;
  TraceChecker c(limits, ClockMode::Offset);
  counter.start();
  int64_t host = 5'000 * kMs;
  for (uint32_t i = 1; i <= 100'000; ++i) {
    CheckedRecord r;
    r.correlation_id = i % 5000;  // wraps: correlation_order violations too
    r.start_ns = 2'000 * kMs + i;
    r.end_ns = r.start_ns + (i % 7 == 0 ? -1 : 1);   // reversed now and then
    r.launch_ns = 2'000 * kMs + (i % 3) * 10 * kMs;  // before its launch now and then
    r.tid = 1 + i % 1000;                            // more threads than slots
    c.check(r, 3'000 * kMs);
    if (i % 100 != 0) continue;
    host += kMs;
    c.clockSample(host, host, host - (i % 300 == 0 ? 5 * kMs : 0));
  }
  EXPECT_EQ(counter.stop(), 0u);
  EXPECT_GT(c.state().violations(), 0u);
}

}  // namespace
}  // namespace gpufl::core
