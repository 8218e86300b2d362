#include "runtime/bench_loop.hpp"

#include <algorithm>
#include <cmath>

#include "core/bench_summary.hpp"
#include "runtime/bench_record.hpp"

#if GPUFL_RUNTIME_HAVE_CUDA
#include "cuda/bench_device.hpp"
#endif

namespace gpufl::runtime {
namespace {

BenchResult failed(const BenchOptions& o, const std::string& step, const std::string& error) {
  BenchResult r;
  r.name = o.name;
  r.shape = o.shape;
  r.dtype = o.dtype;
  r.error = step + ": " + error;
  return r;
}

}  // namespace

BenchResult runBench(BenchDevice& dev, const std::function<void()>& fn, const BenchOptions& o,
                     BenchmarkResult* record) {
  std::string error;
  // Warm-up, measured on the GPU's clock: at least min_warmup_reps calls and warmup_ms of work, so
  // lazy initialisation, memory pool growth and autotuning happen before timing starts.
  std::vector<double> warm;
  double warm_ns = 0;
  while (static_cast<int>(warm.size()) < std::max(o.min_warmup_reps, 1) ||
         warm_ns < o.warmup_ms * 1e6) {
    const double ns = dev.timed(fn, &error);
    if (ns < 0) return failed(o, "warm-up call " + std::to_string(warm.size() + 1), error);
    warm.push_back(ns);
    warm_ns += ns;
    if (static_cast<int>(warm.size()) >= kMaxWarmupReps) break;
  }
  // The typical call after warm-up: the later half of the warm-up calls.
  std::vector<double> late(warm.begin() + static_cast<std::ptrdiff_t>(warm.size() / 2), warm.end());
  std::sort(late.begin(), late.end());
  const double call_ns = std::max(core::percentile(late, 50), 1.0);

  int ops = 1;
  if (o.graph) {
    ops = static_cast<int>(
        std::clamp(std::ceil(kGraphReplayTargetNs / call_ns), 1.0, double(kMaxGraphCalls)));
    if (!dev.capture(fn, ops, &error)) return failed(o, "graph capture", error);
  }
  int reps = o.reps;
  if (reps <= 0)
    reps = static_cast<int>(std::clamp(o.target_ms * 1e6 / (call_ns * ops), double(kMinAutoReps),
                                       double(kMaxAutoReps)));

  core::BenchSamples s;
  s.ops_per_rep = static_cast<uint64_t>(ops);
  s.launch_overhead_ns = dev.launchOverheadNs();
  s.clk_sm_limit_mhz = dev.smClockLimitMhz();
  auto sample = [&] {
    if (auto c = dev.smClockMhz()) s.clk_sm_mhz.push_back(*c);
    for (std::string& r : dev.throttleReasons()) s.throttle_reasons.push_back(std::move(r));
  };
  sample();
  for (int i = 0; i < reps; ++i) {
    if (o.flush_l2 && !dev.flushL2(&error)) return failed(o, "L2 flush", error);
    const double ns = o.graph ? dev.timedReplay(&error) : dev.timed(fn, &error);
    if (ns < 0) return failed(o, "repetition " + std::to_string(i + 1), error);
    s.rep_ns.push_back(ns);
    if (i == reps / 2) sample();
  }
  sample();
  s.other_processes = dev.otherProcesses();

  BenchmarkResult b;
  b.name = o.name;
  b.shape = o.shape;
  b.dtype = o.dtype;
  b.device = dev.deviceIndex();
  b.method = o.graph ? "graph" : "events";
  b.warmup_reps = warm.size();
  b.flush_l2 = o.flush_l2;
  b.flops = o.flops;
  b.bytes = o.bytes;
  b.peak_tflops = o.flops > 0 ? dev.peakTflops(o.dtype) : 0;
  b.peak_gbps = o.bytes > 0 ? dev.peakGbps() : 0;
  if (!core::summarizeBench(s, b, &error)) return failed(o, "summary", error);
  if (record) *record = b;
  return publicResult(b);
}

std::unique_ptr<BenchDevice> makeCudaBenchDevice(void* stream, std::string* error) {
#if GPUFL_RUNTIME_HAVE_CUDA
  return cuda::makeBenchDevice(stream, error);
#else
  (void)stream;
  *error = "gpufl was built without the CUDA backend: gpufl::bench cannot time anything";
  return nullptr;
#endif
}

}  // namespace gpufl::runtime
