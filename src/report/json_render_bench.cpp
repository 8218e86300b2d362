// renderJson's "benchmarks": every field of each benchmark record, by its log key (the field table
// in core/record_schema.hpp), plus the figures the text shows (spread, percent of peak).
#include "core/record_schema.hpp"
#include "report/bench_stats.hpp"
#include "report/json_render_parts.hpp"

namespace gpufl::report::json {
namespace {

template <typename T>
void put(JsonWriter& w, std::string_view key, const T& v) {
  if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    w.key(key).beginArray();
    for (const std::string& s : v) w.value(s);
    w.endArray();
  } else if constexpr (requires { v.has_value(); }) {
    w.key(key);
    if (v)
      w.value(*v);
    else
      w.null();
  } else {
    w.field(key, v);
  }
}

}  // namespace

void benchmarks(JsonWriter& w, const std::vector<BenchmarkResult>& bs) {
  w.key("benchmarks").beginArray();
  for (const BenchmarkResult& b : bs) {
    w.beginObject();
    schema::Schema<BenchmarkResult>::forEach(
        b, [&](const schema::FieldInfo& f, const auto& member) { put(w, f.key, member); });
    w.field("spread_p90_p10", benchmarkSpread(b));
    w.field("tflops_pct_of_peak", percentOfPeak(b.tflops, b.peak_tflops), 2);
    w.field("gbps_pct_of_peak", percentOfPeak(b.gbps, b.peak_gbps), 2);
    w.endObject();
  }
  w.endArray();
  w.key("benchmark_series").beginArray();
  for (const BenchmarkSeries& s : benchmarkSeries(bs)) {
    w.beginObject();
    w.field("name", s.name);
    w.field("dtype", s.dtype);
    w.field("unit", s.tflops ? "TFLOP/s" : "GB/s");
    w.key("shapes").beginArray();
    for (size_t i : s.rows) w.value(bs[i].shape);
    w.endArray();
    w.field("best_shape", bs[s.rows[s.best]].shape);
    w.field("best_rate", benchmarkRate(bs[s.rows[s.best]]));
    w.field("flattens_at_shape", bs[s.rows[s.flattens]].shape);
    w.endObject();
  }
  w.endArray();
}

}  // namespace gpufl::report::json
