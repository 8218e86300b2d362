// The public benchmark result (include/gpufl/bench.hpp: ms, 0 for "not read") and the `benchmark`
// record (core/events.hpp: ns, optionals), one to the other. Header-only: the runtime and the
// Python binding share it.
#pragma once

#include <cmath>

#include "core/events.hpp"
#include "gpufl/bench.hpp"

namespace gpufl::runtime {

inline BenchmarkResult benchmarkRecord(const BenchResult& r) {
  auto ns = [](double ms) { return static_cast<int64_t>(std::llround(ms * 1e6)); };
  auto clock = [](int mhz) { return mhz > 0 ? std::optional<int>(mhz) : std::nullopt; };
  BenchmarkResult b;
  b.name = r.name;
  b.shape = r.shape;
  b.dtype = r.dtype;
  b.method = r.method;
  b.device = r.device;
  b.flush_l2 = r.flush_l2;
  b.reps = r.reps;
  b.warmup_reps = r.warmup_reps;
  b.ops_per_rep = r.ops_per_rep;
  b.median_ns = ns(r.median_ms);
  b.min_ns = ns(r.min_ms);
  b.p10_ns = ns(r.p10_ms);
  b.p90_ns = ns(r.p90_ms);
  b.max_ns = ns(r.max_ms);
  b.mean_ns = ns(r.mean_ms);
  b.flops = r.flops;
  b.bytes = r.bytes;
  b.tflops = r.tflops;
  b.gbps = r.gbps;
  b.peak_tflops = r.peak_tflops;
  b.peak_gbps = r.peak_gbps;
  b.clk_sm_min_mhz = clock(r.clk_sm_min_mhz);
  b.clk_sm_max_mhz = clock(r.clk_sm_max_mhz);
  b.clk_sm_limit_mhz = clock(r.clk_sm_limit_mhz);
  b.warnings = r.warnings;
  return b;
}

inline BenchResult publicResult(const BenchmarkResult& b) {
  auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
  BenchResult r;
  r.ok = true;
  r.name = b.name;
  r.shape = b.shape;
  r.dtype = b.dtype;
  r.method = b.method;
  r.device = b.device;
  r.flush_l2 = b.flush_l2;
  r.reps = b.reps;
  r.warmup_reps = b.warmup_reps;
  r.ops_per_rep = b.ops_per_rep;
  r.median_ms = ms(b.median_ns);
  r.min_ms = ms(b.min_ns);
  r.p10_ms = ms(b.p10_ns);
  r.p90_ms = ms(b.p90_ns);
  r.max_ms = ms(b.max_ns);
  r.mean_ms = ms(b.mean_ns);
  r.flops = b.flops;
  r.bytes = b.bytes;
  r.tflops = b.tflops;
  r.gbps = b.gbps;
  r.peak_tflops = b.peak_tflops;
  r.peak_gbps = b.peak_gbps;
  r.clk_sm_min_mhz = b.clk_sm_min_mhz.value_or(0);
  r.clk_sm_max_mhz = b.clk_sm_max_mhz.value_or(0);
  r.clk_sm_limit_mhz = b.clk_sm_limit_mhz.value_or(0);
  r.warnings = b.warnings;
  return r;
}

}  // namespace gpufl::runtime
