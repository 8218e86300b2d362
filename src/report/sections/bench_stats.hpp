// Figures of the report's Benchmarks section, from `benchmark` records (core/events.hpp): the
// spread of each timing, its rates against the device's peaks, and, for an operation timed at
// several sizes, where its rate flattens.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/events.hpp"

namespace gpufl::report {

// p90 / p10 of the repetitions (1 = no spread); 0 when unknown (no p10).
double benchmarkSpread(const BenchmarkResult& b);

// rate / peak in percent; 0 when either is unknown.
double percentOfPeak(double rate, double peak);

// The rate a benchmark is judged by: TFLOP/s when it was given flops, else GB/s, else 0.
double benchmarkRate(const BenchmarkResult& b);

// One operation (name and dtype) timed at two or more sizes, in the order of its work per
// operation.
struct BenchmarkSeries {
  std::string name, dtype;
  std::vector<size_t> rows;  // indexes into the benchmarks, smallest work first
  bool tflops = true;        // rates are TFLOP/s (else GB/s)
  size_t best = 0;           // index into rows of the highest rate
  size_t flattens = 0;  // index into rows of the smallest size within kFlatWithin of the best rate
};

inline constexpr double kFlatWithin = 0.10;

// The series among `benchmarks` (operations with a rate at two or more sizes), in order of first
// appearance.
std::vector<BenchmarkSeries> benchmarkSeries(const std::vector<BenchmarkResult>& benchmarks);

}  // namespace gpufl::report
