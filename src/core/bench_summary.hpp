// The statistics and warnings of a benchmark (gpufl.bench, gpufl::bench), from the times of its
// timed repetitions: one implementation, GPU-free, shared by the C++ harness and the Python one
// (through the binding), tested with made-up times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/events.hpp"

namespace gpufl::core {

// A repetition spread p90/p10 above this is too wide to trust the median.
inline constexpr double kMaxTrustedSpread = 1.25;
// Fewer timed repetitions than this make p10/p90 meaningless.
inline constexpr uint64_t kMinTrustedReps = 10;
// SM clocks below this share of the highest clock seen (or of the device's limit) count as
// throttled.
inline constexpr double kThrottledClockShare = 0.95;

// What the harness measured around the timed repetitions.
struct BenchSamples {
  std::vector<double> rep_ns;  // each timed repetition (ops_per_rep operations), on the GPU's clock
  uint64_t ops_per_rep = 1;
  // The time of one launch of an empty operation on the same stream (0: not measured). An operation
  // shorter than this, timed launch by launch, measures the launch, not the work.
  double launch_overhead_ns = 0;
  std::vector<int> clk_sm_mhz;          // NVML SM clock readings during the repetitions
  std::optional<int> clk_sm_limit_mhz;  // the device's max SM clock (NVML)
  std::vector<std::string>
      throttle_reasons;  // NVML clock event reasons seen during the repetitions
  std::vector<std::string>
      other_processes;  // other processes on the GPU, e.g. "pid 4242 (python3)"
};

// p in [0, 100] of sorted values, linear between closest ranks (numpy's default); 0 when empty.
double percentile(const std::vector<double>& sorted, double p);

// Fills the timing (per operation), rate, clock and warning fields of `out` from `s`; name, shape,
// dtype, flops, bytes and peaks are the caller's and are read, not changed. False with *error when
// there is nothing to summarise (no repetition, a non-positive or non-finite time, ops_per_rep 0).
bool summarizeBench(const BenchSamples& s, BenchmarkResult& out, std::string* error);

}  // namespace gpufl::core
