// Cost of a user scope (enter + exit) on the application thread.
//   CoreScope*  core::scopeBegin/End with every record written to the ring (see Recording): the
//               number docs/architecture.md, "The hot path", asks for. The dynamic-names case also
//               builds a std::string per scope, as Python does.
//   ApiScope*   gpufl::Scope / GFL_SCOPE with a real session (writer thread every 50 ms: at this
//               rate most records are dropped, which is cheaper) and with no session (disabled).
#include <benchmark/benchmark.h>

#include <string>

#include "core/clock.hpp"
#include "core/scope_stack.hpp"
#include "core/thread_buffer.hpp"
#include "gpufl/gpufl.hpp"

namespace {

using namespace gpufl;

// Plays the session: consumer of the global registry, recording on. The benchmark thread drains its
// own buffer every kBatch scopes with the timer paused, so every record is written to the ring and
// none is dropped (the steady state of a session whose writer keeps up), without a second thread
// competing for the CPU.
class Recording {
 public:
  static constexpr int kBatch = 2048;  // 4096 records < the 8192-record buffer
  Recording() {
    core::ThreadBufferRegistry::global().attach();
    core::setRecordingGeneration(0x7fff0000u);
  }
  ~Recording() {
    core::setRecordingGeneration(0);
    drain();
    core::ThreadBufferRegistry::global().detach();
  }
  void drain() {
    const auto s = core::ThreadBufferRegistry::global().drainAll(
        [](const core::Record&, const core::ThreadInfo&) {});
    dropped_ += s.dropped.total();
  }
  // Call once per iteration.
  void tick(benchmark::State& state) {
    if (++n_ < kBatch) return;
    n_ = 0;
    state.PauseTiming();
    drain();
    state.ResumeTiming();
  }
  void report(benchmark::State& state) {
    drain();
    state.counters["dropped"] = static_cast<double>(dropped_);
  }

 private:
  int n_ = 0;
  uint64_t dropped_ = 0;
};

void BM_MonotonicNs(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(core::monotonicNs());
}
BENCHMARK(BM_MonotonicNs);

void BM_CoreScope(benchmark::State& state) {
  Recording rec;
  for (auto _ : state) {
    const uint64_t id = core::scopeBegin("bench.scope");
    core::scopeEnd(id);
    rec.tick(state);
  }
  rec.report(state);
}
BENCHMARK(BM_CoreScope);

void BM_CoreScopeNestedTagged(benchmark::State& state) {
  Recording rec;
  const uint64_t outer = core::scopeBegin("bench.outer");
  for (auto _ : state) {
    const uint64_t id = core::scopeBegin("bench.inner", "tag");
    core::scopeEnd(id);
    rec.tick(state);
  }
  core::scopeEnd(outer);
  rec.report(state);
}
BENCHMARK(BM_CoreScopeNestedTagged);

// Names built at run time (as from Python): a fresh std::string each time, 16 distinct names.
void BM_CoreScopeDynamicNames(benchmark::State& state) {
  Recording rec;
  std::string names[16];
  for (int i = 0; i < 16; ++i) names[i] = "bench.dynamic.name." + std::to_string(i);
  size_t i = 0;
  for (auto _ : state) {
    std::string temp = names[i++ & 15];
    const uint64_t id = core::scopeBegin(temp);
    core::scopeEnd(id);
    rec.tick(state);
  }
  rec.report(state);
}
BENCHMARK(BM_CoreScopeDynamicNames);

void BM_ApiScopeNoSession(benchmark::State& state) {
  for (auto _ : state) {
    GFL_SCOPE("bench.api.off") {
      benchmark::ClobberMemory();
    }
  }
}
BENCHMARK(BM_ApiScopeNoSession);

void BM_ApiScopeSession(benchmark::State& state) {
  InitOptions opts;
  opts.app_name = "bench_scope";
  opts.log_path = "/tmp/gpufl_bench_scope";
  opts.system_sample_rate_ms = 0;
  gpufl::init(opts);
  for (auto _ : state) {
    GFL_SCOPE("bench.api.on") {
      benchmark::ClobberMemory();
    }
  }
  gpufl::shutdown();
}
BENCHMARK(BM_ApiScopeSession);

}  // namespace

BENCHMARK_MAIN();
