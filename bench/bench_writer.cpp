// Writer throughput on one core, in kernel events per second (target: >= 2M/s).
//  - BM_FormatKernelEvent: formatting only, into a reused buffer.
//  - BM_WriteKernelEvents: LogWriter::onKernel into a real file in /tmp (format + block writes).
//  - BM_WriteKernelBlocks: the same with kernel_blocks (kernel_block lines, zstd on this thread).
//  - BM_WriteSession: a recorded synthetic session (kernels, defs, copies, scopes, samples)
//  replayed into a
//    LogWriter; rate counts kernel events only. With rotation, closed segments are compressed on
//    the writer's background thread (another core), which the rate does not wait for.
// Events are generated up front (bench/synthetic_session.*), so generation is not measured.
// items_per_second is per CPU second of the benchmark thread (the machine may be shared); the Time
// column is wall time.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <variant>

#include "log/log_writer.hpp"
#include "log/ndjson_format.hpp"
#include "synthetic_session.hpp"

namespace {

using namespace gpufl;

using Recorded = std::variant<SessionStart, SessionEnd, Note, KernelDef, KernelEvent, MemcpyEvent,
                              ScopePath, ScopeBegin, ScopeEnd, GpuSample, HostSample>;

// Keeps every event of a session, in order, to replay it later.
struct Recorder : EventVisitor {
  std::vector<Recorded> events;
  std::vector<KernelEvent> kernels;
  void onSessionStart(const SessionStart& e) override { events.emplace_back(e); }
  void onSessionEnd(const SessionEnd& e) override { events.emplace_back(e); }
  void onNote(const Note& e) override { events.emplace_back(e); }
  void onKernelDef(const KernelDef& e) override { events.emplace_back(e); }
  void onKernel(const KernelEvent& e) override {
    events.emplace_back(e);
    kernels.push_back(e);
  }
  void onMemcpy(const MemcpyEvent& e) override { events.emplace_back(e); }
  void onScopePath(const ScopePath& e) override { events.emplace_back(e); }
  void onScopeBegin(const ScopeBegin& e) override { events.emplace_back(e); }
  void onScopeEnd(const ScopeEnd& e) override { events.emplace_back(e); }
  void onGpuSample(const GpuSample& e) override { events.emplace_back(e); }
  void onHostSample(const HostSample& e) override { events.emplace_back(e); }
};

const Recorder& session() {
  static const Recorder r = [] {
    Recorder rec;
    bench::generateSession({200'000, 1, 0}, rec);
    return rec;
  }();
  return r;
}

void replay(const Recorded& r, EventVisitor& v) {
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, SessionStart>)
          v.onSessionStart(e);
        else if constexpr (std::is_same_v<T, SessionEnd>)
          v.onSessionEnd(e);
        else if constexpr (std::is_same_v<T, Note>)
          v.onNote(e);
        else if constexpr (std::is_same_v<T, KernelDef>)
          v.onKernelDef(e);
        else if constexpr (std::is_same_v<T, KernelEvent>)
          v.onKernel(e);
        else if constexpr (std::is_same_v<T, MemcpyEvent>)
          v.onMemcpy(e);
        else if constexpr (std::is_same_v<T, ScopePath>)
          v.onScopePath(e);
        else if constexpr (std::is_same_v<T, ScopeBegin>)
          v.onScopeBegin(e);
        else if constexpr (std::is_same_v<T, ScopeEnd>)
          v.onScopeEnd(e);
        else if constexpr (std::is_same_v<T, GpuSample>)
          v.onGpuSample(e);
        else if constexpr (std::is_same_v<T, HostSample>)
          v.onHostSample(e);
      },
      r);
}

// A fresh prefix in /tmp, removed (with every segment) when done.
struct TempPrefix {
  std::string dir;
  TempPrefix() {
    char tmpl[] = "/tmp/gpufl_bench_writer_XXXXXX";
    dir = ::mkdtemp(tmpl) ? tmpl : "/tmp";
  }
  ~TempPrefix() { std::filesystem::remove_all(dir); }
  std::string prefix() const { return dir + "/bench"; }
};

std::unique_ptr<log::LogWriter> openWriter(const TempPrefix& tmp, uint64_t rotate_bytes,
                                           bool kernel_blocks = false) {
  log::LogWriterOptions o;
  o.prefix = tmp.prefix();
  o.rotate_bytes = rotate_bytes;
  o.kernel_blocks = kernel_blocks;
  std::string error;
  auto w = log::LogWriter::open(o, &error);
  if (!w) std::fprintf(stderr, "bench_writer: %s\n", error.c_str());
  return w;
}

void BM_FormatKernelEvent(benchmark::State& state) {
  const auto& kernels = session().kernels;
  log::KernelDeltaEncoder delta;
  std::string out;
  out.reserve(1 << 20);
  size_t i = 0;
  for (auto _ : state) {
    log::formatKernelEvent(out, kernels[i], delta);
    if (++i == kernels.size()) i = 0;
    if (out.size() >= (256 << 10)) out.clear();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FormatKernelEvent);

// Kernel events only, straight into the device file; rotate_bytes as the argument (0 = never).
void BM_WriteKernelEvents(benchmark::State& state) {
  const auto& kernels = session().kernels;
  TempPrefix tmp;
  auto w = openWriter(tmp, uint64_t(state.range(0)));
  if (!w) return state.SkipWithError("cannot open writer");
  uint64_t n = 0;
  for (auto _ : state) {
    for (const auto& k : kernels) w->onKernel(k);
    w->flush();
    n += kernels.size();
    if (state.range(0) == 0 && n >= 2'000'000) {  // keep /tmp small: start over every ~200 MB
      state.PauseTiming();
      w.reset();
      std::filesystem::remove(tmp.prefix() + ".device.log");
      w = openWriter(tmp, 0);
      n = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(int64_t(state.iterations() * kernels.size()));
  state.counters["bytes_per_kernel"] =
      double(w->stats().bytes_written) / double(std::max<uint64_t>(n, 1));
}
BENCHMARK(BM_WriteKernelEvents)->Arg(0)->Arg(64 << 20)->Unit(benchmark::kMillisecond);

// The same kernels with kernel_blocks on: collecting, packing and compressing blocks (zstd -3) on
// this thread instead of formatting lines.
void BM_WriteKernelBlocks(benchmark::State& state) {
  const auto& kernels = session().kernels;
  TempPrefix tmp;
  auto w = openWriter(tmp, 0, true);
  if (!w) return state.SkipWithError("cannot open writer");
  for (auto _ : state) {
    for (const auto& k : kernels) w->onKernel(k);
    w->flush();
  }
  state.SetItemsProcessed(int64_t(state.iterations() * kernels.size()));
  state.counters["bytes_per_kernel"] =
      double(w->stats().bytes_written) /
      double(std::max<uint64_t>(state.iterations() * kernels.size(), 1));
}
BENCHMARK(BM_WriteKernelBlocks)->Unit(benchmark::kMillisecond);

// The whole session mix; argument: rotate_bytes (rotation also compresses, off this thread).
void BM_WriteSession(benchmark::State& state) {
  const Recorder& rec = session();
  TempPrefix tmp;
  auto w = openWriter(tmp, uint64_t(state.range(0)));
  if (!w) return state.SkipWithError("cannot open writer");
  uint64_t rounds = 0;
  for (auto _ : state) {
    for (const auto& e : rec.events) replay(e, *w);
    w->flush();
    if (state.range(0) == 0 && ++rounds % 10 == 0) {
      state.PauseTiming();
      w.reset();
      for (const char* c : {".device.log", ".scope.log", ".system.log"})
        std::filesystem::remove(tmp.prefix() + c);
      w = openWriter(tmp, 0);
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(int64_t(state.iterations() * rec.kernels.size()));
  w->close();  // after the timed loop: waits for the compressor
  state.counters["segments_compressed"] = double(w->stats().segments_compressed);
}
BENCHMARK(BM_WriteSession)->Arg(0)->Arg(64 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
