// Timing a GPU operation honestly (docs/bench.md): warm up, time with CUDA events on the stream the
// work runs on, repeat, take the median, turn it into a rate, and say when not to trust it.
//
//   gpufl::BenchOptions o;
//   o.name = "gemm"; o.shape = "4096x4096x4096"; o.dtype = "bf16"; o.flops = 2.0 * n * n * n;
//   o.stream = stream;                        // the cudaStream_t the work is enqueued on
//   gpufl::BenchResult r = gpufl::bench([&] { gemm<<<g, b, 0, stream>>>(...); }, o);
//   std::printf("%.3f ms, %.1f TFLOP/s\n", r.median_ms, r.tflops);
//
// With a session recording (gpufl::init), the result is also a `benchmark` record in its log and a
// line of the report's Benchmarks section. Nothing here throws.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpufl {

struct BenchOptions {
  std::string name = "bench";
  std::string shape;  // the size it runs at: a kernel has a speed only at a size
  std::string dtype;
  double warmup_ms =
      200;  // warm up for at least this long: absorbs lazy init, pool growth, autotuning
  int min_warmup_reps = 3;
  int reps = 0;            // timed repetitions; 0: as many as fit in target_ms (10..1000)
  double target_ms = 500;  // with reps == 0: time spent in timed repetitions
  double flops = 0;        // per call of fn, for TFLOP/s (0: no rate)
  double bytes = 0;        // per call of fn, for GB/s
  void* stream =
      nullptr;  // the cudaStream_t (CUstream) fn enqueues its work on; nullptr: the default stream
  bool flush_l2 =
      false;  // overwrite a buffer the size of L2 before every repetition (cold-cache timing)
  bool graph =
      false;  // capture fn into a CUDA graph (many calls) and time replays: for tiny operations
  bool record = true;  // write a `benchmark` record into the recording session, if any
};

// Times are per call of fn, in ms; rates at the median. ok is false (error says why) when nothing
// could be timed: no CUDA backend in this build, no GPU, a CUDA call failed.
struct BenchResult {
  bool ok = false;
  std::string error;
  std::string name, shape, dtype;
  std::string method;  // "events" or "graph"
  uint32_t device = 0;
  bool flush_l2 = false;
  uint64_t reps = 0, warmup_reps = 0, ops_per_rep = 1;
  double median_ms = 0, min_ms = 0, p10_ms = 0, p90_ms = 0, max_ms = 0, mean_ms = 0;
  double flops = 0, bytes = 0;
  double tflops = 0, gbps = 0;
  double peak_tflops = 0, peak_gbps = 0;                             // 0: unknown
  int clk_sm_min_mhz = 0, clk_sm_max_mhz = 0, clk_sm_limit_mhz = 0;  // 0: not read
  std::vector<std::string>
      warnings;  // each with its numbers (launch overhead, spread, clocks, shared GPU)
};

// Times fn, which enqueues GPU work on options.stream. Needs a GPU and the CUDA backend.
BenchResult bench(const std::function<void()>& fn, const BenchOptions& options = {});

// Writes a result measured elsewhere (the Python harness) as a `benchmark` record of the recording
// session. False when no session is recording or the result is not ok.
bool recordBenchmark(const BenchResult& result);

}  // namespace gpufl
