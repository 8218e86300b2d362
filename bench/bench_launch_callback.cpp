// What gpufl itself adds on the application thread per kernel launch under tracing: the tracer's
// launch callback (enter + exit, as CUPTI calls it for cudaLaunchKernel) inside two nested scopes,
// with no deep engine. Fed host-built CUpti_CallbackData, so it runs without a GPU; CUPTI's own
// dispatch (the floor, bench/floor_inject.cpp) is not in it. Compare with the gpufl/floor gap of
// bench/overhead.py: if this is far smaller, the gap is in how CUPTI is configured, not our code.
#include <benchmark/benchmark.h>
#include <cupti.h>

#include "core/scope_stack.hpp"
#include "core/thread_buffer.hpp"
#include "cuda/cupti_tracer.hpp"

namespace {

using gpufl::cuda::CuptiTracer;

void BM_LaunchCallbackEnterExit(benchmark::State& state) {
  gpufl::core::ThreadBufferRegistry::global().attach();
  gpufl::core::setRecordingGeneration(0x7fff0000u);
  CuptiTracer tracer;
  CUpti_CallbackData cb{};
  cb.symbolName = "_Z4tinyPfi";
  cb.functionName = "cudaLaunchKernel";
  uint32_t correlation = 1;
  const uint64_t outer = gpufl::core::scopeBegin("step");
  const uint64_t inner = gpufl::core::scopeBegin("forward");
  {
    for (auto _ : state) {
      cb.correlationId = correlation++;
      cb.callbackSite = CUPTI_API_ENTER;
      tracer.onApi(&cb, true, CuptiTracer::ApiKind::KernelLaunch);
      cb.callbackSite = CUPTI_API_EXIT;
      tracer.onApi(&cb, false, CuptiTracer::ApiKind::KernelLaunch);
    }
  }
  state.counters["scope_path"] = gpufl::core::currentScopePath();  // non-zero: attributed
  gpufl::core::scopeEnd(inner);
  gpufl::core::scopeEnd(outer);
  gpufl::core::setRecordingGeneration(0);
  gpufl::core::ThreadBufferRegistry::global().drainAll(
      [](const gpufl::core::Record&, const gpufl::core::ThreadInfo&) {});
  gpufl::core::ThreadBufferRegistry::global().detach();
}
BENCHMARK(BM_LaunchCallbackEnterExit);

}  // namespace

BENCHMARK_MAIN();
