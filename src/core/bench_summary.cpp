#include "core/bench_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace gpufl::core {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string us(double ns) {
  return fixed(ns / 1000.0, ns < 10000 ? 2 : 1) + " us";
}

int64_t roundNs(double ns) {
  return static_cast<int64_t>(std::llround(ns));
}

// Reasons that say the clock was held down by something other than the work being light.
bool throttling(const std::string& reason) {
  return reason != "gpu_idle" && reason != "none" && reason != "applications_clocks_setting";
}

void clockWarnings(const BenchSamples& s, BenchmarkResult& out) {
  if (!s.clk_sm_mhz.empty()) {
    const auto [lo, hi] = std::minmax_element(s.clk_sm_mhz.begin(), s.clk_sm_mhz.end());
    out.clk_sm_min_mhz = *lo;
    out.clk_sm_max_mhz = *hi;
  }
  out.clk_sm_limit_mhz = s.clk_sm_limit_mhz;
  std::vector<std::string> reasons;
  for (const std::string& r : s.throttle_reasons)
    if (throttling(r) && std::find(reasons.begin(), reasons.end(), r) == reasons.end())
      reasons.push_back(r);
  const int top = s.clk_sm_limit_mhz.value_or(out.clk_sm_max_mhz.value_or(0));
  const bool low =
      out.clk_sm_min_mhz && top > 0 && *out.clk_sm_min_mhz < kThrottledClockShare * top;
  if (!low && reasons.empty()) return;
  std::string w = "clocks throttled during the run";
  if (out.clk_sm_min_mhz)
    w += ": SM clock " + std::to_string(*out.clk_sm_min_mhz) + ".." +
         std::to_string(*out.clk_sm_max_mhz) + " MHz";
  if (s.clk_sm_limit_mhz) w += " (max " + std::to_string(*s.clk_sm_limit_mhz) + " MHz)";
  if (!reasons.empty()) {
    w += "; NVML reasons:";
    for (const std::string& r : reasons) w += " " + r;
  }
  out.warnings.push_back(w + "; times are slower than the device can run");
}

}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (rank - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

bool summarizeBench(const BenchSamples& s, BenchmarkResult& out, std::string* error) {
  if (s.rep_ns.empty()) {
    if (error) *error = "no timed repetition";
    return false;
  }
  if (s.ops_per_rep == 0) {
    if (error) *error = "ops_per_rep is 0";
    return false;
  }
  std::vector<double> t;
  t.reserve(s.rep_ns.size());
  for (const double ns : s.rep_ns) {
    if (!std::isfinite(ns) || ns <= 0) {
      if (error)
        *error = "repetition " + std::to_string(t.size()) + " has time " + fixed(ns, 3) + " ns";
      return false;
    }
    t.push_back(ns / static_cast<double>(s.ops_per_rep));
  }
  std::sort(t.begin(), t.end());
  const double median = percentile(t, 50);
  out.reps = t.size();
  out.ops_per_rep = s.ops_per_rep;
  out.median_ns = roundNs(median);
  out.min_ns = roundNs(t.front());
  out.max_ns = roundNs(t.back());
  out.p10_ns = roundNs(percentile(t, 10));
  out.p90_ns = roundNs(percentile(t, 90));
  out.mean_ns = roundNs(std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size()));
  // flops / (median_ns * 1e-9) / 1e12 and bytes / (median_ns * 1e-9) / 1e9, from the unrounded
  // median.
  out.tflops = out.flops > 0 ? out.flops / median / 1e3 : 0;
  out.gbps = out.bytes > 0 ? out.bytes / median : 0;

  out.warnings.clear();
  if (s.launch_overhead_ns > 0 && median < s.launch_overhead_ns && s.ops_per_rep == 1)
    out.warnings.push_back(
        "median " + us(median) + " is shorter than the launch overhead (" +
        us(s.launch_overhead_ns) +
        "): this times launching, not the work; use graph=True (CUDA graph replay)");
  if (t.size() < kMinTrustedReps)
    out.warnings.push_back("only " + std::to_string(t.size()) + " timed repetitions (fewer than " +
                           std::to_string(kMinTrustedReps) + "): p10/p90 are rough");
  const double p10 = percentile(t, 10), p90 = percentile(t, 90);
  if (p90 > kMaxTrustedSpread * p10)
    out.warnings.push_back("spread p90/p10 = " + fixed(p90 / p10, 2) + " (p10 " + us(p10) +
                           ", p90 " + us(p90) + ") is wider than " + fixed(kMaxTrustedSpread, 2) +
                           ": too noisy to trust the median");
  clockWarnings(s, out);
  if (!s.other_processes.empty()) {
    std::string w = "GPU shared with " + std::to_string(s.other_processes.size()) +
                    " other process" + (s.other_processes.size() == 1 ? "" : "es") + ":";
    for (const std::string& p : s.other_processes) w += " " + p;
    out.warnings.push_back(w + "; times include their work");
  }
  return true;
}

}  // namespace gpufl::core
