#include "report/sections/bench_stats.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace gpufl::report {

double benchmarkSpread(const BenchmarkResult& b) {
  if (b.p10_ns <= 0 || b.p90_ns <= 0) return 0;
  return static_cast<double>(b.p90_ns) / static_cast<double>(b.p10_ns);
}

double percentOfPeak(double rate, double peak) {
  if (!(rate > 0) || !(peak > 0)) return 0;
  return 100.0 * rate / peak;
}

double benchmarkRate(const BenchmarkResult& b) {
  if (b.tflops > 0) return b.tflops;
  return b.gbps > 0 ? b.gbps : 0;
}

namespace {

// The work of one operation, to order the sizes of a series (the shape text does not order).
double work(const BenchmarkResult& b) {
  return b.flops > 0 ? b.flops : b.bytes;
}

}  // namespace

std::vector<BenchmarkSeries> benchmarkSeries(const std::vector<BenchmarkResult>& benchmarks) {
  std::vector<BenchmarkSeries> all;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (size_t i = 0; i < benchmarks.size(); ++i) {
    const BenchmarkResult& b = benchmarks[i];
    if (benchmarkRate(b) <= 0 || work(b) <= 0) continue;
    auto [it, fresh] = index.try_emplace({b.name, b.dtype}, all.size());
    if (fresh) all.push_back({b.name, b.dtype, {}, b.tflops > 0});
    BenchmarkSeries& s = all[it->second];
    if ((b.tflops > 0) != s.tflops) continue;  // one unit per series
    s.rows.push_back(i);
  }
  std::vector<BenchmarkSeries> out;
  for (BenchmarkSeries& s : all) {
    // The same size timed twice is one size: keep every row, but a series needs two distinct sizes.
    std::stable_sort(s.rows.begin(), s.rows.end(),
                     [&](size_t a, size_t b) { return work(benchmarks[a]) < work(benchmarks[b]); });
    if (work(benchmarks[s.rows.front()]) == work(benchmarks[s.rows.back()])) continue;
    for (size_t r = 0; r < s.rows.size(); ++r)
      if (benchmarkRate(benchmarks[s.rows[r]]) > benchmarkRate(benchmarks[s.rows[s.best]]))
        s.best = r;
    const double floor = (1.0 - kFlatWithin) * benchmarkRate(benchmarks[s.rows[s.best]]);
    s.flattens = s.best;
    for (size_t r = 0; r < s.rows.size(); ++r) {
      if (benchmarkRate(benchmarks[s.rows[r]]) >= floor) {
        s.flattens = r;
        break;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpufl::report
