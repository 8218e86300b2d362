// The tracer's callbacks on the application thread allocate nothing once warm: kernel launches
// (enter + exit) and copies inside nested scopes, fed host-built CUpti_CallbackData as CUPTI would
// pass them (no GPU needed; no deep engine). Heap allocations are counted by a preloaded malloc
// (tests/support). On the H200 a traced launch allocated once (2026-11-29): if this test passes,
// that allocation is CUPTI's, not gpufl's.
#include <cupti.h>
#include <gtest/gtest.h>

#include <string>

#include "alloc_counter.hpp"
#include "core/scope_stack.hpp"
#include "core/thread_buffer.hpp"
#include "cuda/cupti_tracer.hpp"

namespace gpufl::cuda {
namespace {

void drain() {
  core::ThreadBufferRegistry::global().drainAll(
      [](const core::Record&, const core::ThreadInfo&) {});
}

TEST(TracerAllocations, LaunchAndCopyCallbacksAllocateNothingOnceWarm) {
  const AllocationCounter counter;
  ASSERT_TRUE(counter.loaded()) << "run through ctest (LD_PRELOAD of the allocation counter)";
  core::ThreadBufferRegistry::global().attach();
  core::setRecordingGeneration(0x7fff0000u);
  CuptiTracer tracer;
  CUpti_CallbackData cb{};
  cb.symbolName = "_Z4tinyPfi";
  cb.functionName = "cudaLaunchKernel";
  uint32_t correlation = 1;
  auto step = [&] {
    const uint64_t outer = core::scopeBegin("step");
    const uint64_t inner = core::scopeBegin("forward");
    cb.correlationId = correlation++;
    cb.callbackSite = CUPTI_API_ENTER;
    tracer.onApi(&cb, true, CuptiTracer::ApiKind::KernelLaunch);
    cb.callbackSite = CUPTI_API_EXIT;
    tracer.onApi(&cb, false, CuptiTracer::ApiKind::KernelLaunch);
    cb.correlationId = correlation++;
    cb.callbackSite = CUPTI_API_ENTER;
    tracer.onApi(&cb, true, CuptiTracer::ApiKind::Copy);
    core::scopeEnd(inner);
    core::scopeEnd(outer);
  };
  for (int i = 0; i < 1000; ++i) step();  // warm-up: thread buffer, interned names, scope paths
  drain();
  uint64_t allocations = 0;
  for (int round = 0; round < 10; ++round) {  // the writer drains between rounds, as in a session
    counter.start();
    for (int i = 0; i < 1000; ++i) step();
    allocations += counter.stop();
    drain();
  }
  EXPECT_EQ(allocations, 0u) << "heap allocations in 10,000 traced launches + copies";

  // The counter sees this binary's allocations (so the check above can fail): a new scope name is
  // interned on the heap.
  counter.start();
  const uint64_t fresh = core::scopeBegin(std::string(64, 'n'));
  const uint64_t seen = counter.stop();
  core::scopeEnd(fresh);
  EXPECT_GT(seen, 0u);

  core::setRecordingGeneration(0);
  drain();
  core::ThreadBufferRegistry::global().detach();
}

}  // namespace
}  // namespace gpufl::cuda
