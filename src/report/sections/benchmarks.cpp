// Section "Benchmarks": timings measured by the harness (gpufl.bench / gpufl::bench), the honest
// numbers, shown apart from traced ones, each with its size, spread, rates against the device's
// peaks and warnings (JSON: "benchmarks", every field of each record, and "benchmark_series").
#include "report/sections/bench_stats.hpp"
#include "report/sections/section.hpp"

namespace gpufl::report {

// A benchmark record by its log table, plus the figures the text shows.
// clang-format off
#define GFL_REPORT_JSON_BenchmarkResult(F, K, N, L)                                               \
  L() K("spread_p90_p10", benchmarkSpread(v), kPlain)                                             \
  K("tflops_pct_of_peak", percentOfPeak(v.tflops, v.peak_tflops), kDec2)                          \
  K("gbps_pct_of_peak", percentOfPeak(v.gbps, v.peak_gbps), kDec2)

// An operation timed at several sizes; `rows` index r.benchmarks.
#define GFL_REPORT_JSON_BenchmarkSeries(F, K, N, L)                                               \
  F(name, kPlain) F(dtype, kPlain) K("unit", v.tflops ? "TFLOP/s" : "GB/s", kPlain)              \
  K("shapes", seriesShapes(v, r.benchmarks), kPlain)                                              \
  K("best_shape", r.benchmarks[v.rows[v.best]].shape, kPlain)                                     \
  K("best_rate", benchmarkRate(r.benchmarks[v.rows[v.best]]), kPlain)                             \
  K("flattens_at_shape", r.benchmarks[v.rows[v.flattens]].shape, kPlain)
// clang-format on

namespace {
std::vector<std::string> seriesShapes(const BenchmarkSeries& s,
                                      const std::vector<BenchmarkResult>& bs) {
  std::vector<std::string> shapes;
  for (size_t i : s.rows) shapes.push_back(bs[i].shape);
  return shapes;
}
}  // namespace

// In namespace gpufl::report: BenchmarkResult is the log's type (namespace gpufl), found here
// through the Report argument.
GFL_REPORT_JSON_FIELDS(BenchmarkResult)
GFL_REPORT_JSON_FIELDS(BenchmarkSeries)

namespace sections {
namespace {

std::string dur(int64_t ns) {
  return formatDuration(static_cast<double>(ns));
}

std::string title(const BenchmarkResult& b) {
  std::string t = b.name;
  if (!b.shape.empty()) t += " [" + b.shape + "]";
  if (!b.dtype.empty()) t += " " + b.dtype;
  return t;
}

std::string rate(double value, double peak, const char* unit) {
  std::string s = formatFixed(value, value < 10 ? 2 : 1) + " " + unit;
  if (peak > 0)
    s +=
        " (" + formatPercent(percentOfPeak(value, peak)) + " of " + formatFixed(peak, 1) + " peak)";
  return s;
}

// Two lines: the typical time and its spread, then the extremes and how it was timed.
std::string timing(const BenchmarkResult& b) {
  std::string s = "median " + dur(b.median_ns);
  if (b.p10_ns > 0 || b.p90_ns > 0) s += "  p10 " + dur(b.p10_ns) + "  p90 " + dur(b.p90_ns);
  const double spread = benchmarkSpread(b);
  if (spread > 0) s += "  (p90/p10 " + formatFixed(spread, 2) + ")";
  return s;
}

std::string extremes(const BenchmarkResult& b) {
  std::string how = formatCount(b.reps) + " reps";
  if (b.ops_per_rep > 1) how += " of " + formatCount(b.ops_per_rep) + " ops";
  if (!b.method.empty()) how += ", " + b.method;
  if (b.flush_l2) how += ", L2 flushed";
  return "min " + dur(b.min_ns) + "  max " + dur(b.max_ns) + "  (" + how + ")";
}

void renderOne(TextOut& out, const BenchmarkResult& b) {
  out.line("  " + title(b));
  out.line("    " + timing(b));
  out.line("    " + extremes(b));
  std::string rates;
  if (b.tflops > 0) rates = rate(b.tflops, b.peak_tflops, "TFLOP/s");
  if (b.gbps > 0) rates += (rates.empty() ? "" : "   ") + rate(b.gbps, b.peak_gbps, "GB/s");
  if (!rates.empty()) out.line("    rate   " + rates);
  if (b.clk_sm_min_mhz && b.clk_sm_max_mhz) {
    std::string clocks =
        *b.clk_sm_min_mhz == *b.clk_sm_max_mhz
            ? std::to_string(*b.clk_sm_min_mhz)
            : std::to_string(*b.clk_sm_min_mhz) + ".." + std::to_string(*b.clk_sm_max_mhz);
    clocks = "SM " + clocks + " MHz";
    if (b.clk_sm_limit_mhz) clocks += " (max " + std::to_string(*b.clk_sm_limit_mhz) + ")";
    out.line("    clocks " + clocks);
  }
  for (const std::string& w : b.warnings) out.wrapped(w, kRuleWidth, "    ! ", "      ");
}

void renderSeries(TextOut& out, const std::vector<BenchmarkResult>& bs, const BenchmarkSeries& s) {
  const BenchmarkResult& best = bs[s.rows[s.best]];
  const BenchmarkResult& flat = bs[s.rows[s.flattens]];
  const char* unit = s.tflops ? "TFLOP/s" : "GB/s";
  std::string text = s.name + (s.dtype.empty() ? "" : " " + s.dtype) + " at " +
                     std::to_string(s.rows.size()) + " sizes: best " +
                     formatFixed(benchmarkRate(best), 1) + " " + unit + " at " +
                     (best.shape.empty() ? "(no shape)" : best.shape) +
                     "; the rate flattens (within " + formatPercent(100 * kFlatWithin, 0) +
                     " of the best) from " + (flat.shape.empty() ? "(no shape)" : flat.shape);
  out.wrapped(text, kRuleWidth, "  ", "    ");
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  out.banner("Benchmarks");
  out.line("  Timed after warm-up on the GPU's clock; per operation, median of the reps.");
  for (const BenchmarkResult& b : r.benchmarks) {
    out.line();
    renderOne(out, b);
  }
  const std::vector<BenchmarkSeries> series = benchmarkSeries(r.benchmarks);
  if (series.empty()) return;
  out.line();
  out.line("  A speed at a size:");
  for (const BenchmarkSeries& s : series) renderSeries(out, r.benchmarks, s);
}

bool inText(const Report& r) {
  return !r.benchmarks.empty();
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "benchmarks", r.benchmarks, r);
  json::put(w, "benchmark_series", benchmarkSeries(r.benchmarks), r);
}

}  // namespace

// JSON after "profile": where report_schema 1 has always had it.
extern const Section kBenchmarks = {.name = "benchmarks",
                                    .text = writeText,
                                    .in_text = inText,
                                    .json = writeJson,
                                    .json_after = "profile"};

}  // namespace sections
}  // namespace gpufl::report
