// The benchmark pieces the Python harness (python/gpufl/_bench.py) uses: the one implementation of
// the statistics and warnings (core::summarizeBench), the device peak table, and writing a result
// into the session (gpufl::recordBenchmark). Results travel as dicts keyed like the `benchmark`
// record (core/record_schema.hpp).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "core/bench_summary.hpp"
#include "core/device_peaks.hpp"
#include "core/record_schema.hpp"
#include "gpufl/bench.hpp"
#include "nvml/nvml_sampler.hpp"
#include "runtime/bench_record.hpp"

namespace nb = nanobind;

namespace gpufl::py {
namespace {

using schema::FieldInfo, schema::Schema;

nb::dict toDict(const BenchmarkResult& b) {
  nb::dict d;
  Schema<BenchmarkResult>::forEach(b, [&](const FieldInfo& f, const auto& m) {
    const nb::str key(f.key.data(), f.key.size());
    if constexpr (requires { m.has_value(); }) {
      d[key] = m ? nb::cast(*m) : nb::none();
    } else {
      d[key] = nb::cast(m);
    }
  });
  return d;
}

// Fields absent from `d` (or None) keep their defaults; a value of the wrong type names its key.
BenchmarkResult fromDict(const nb::dict& d) {
  BenchmarkResult b;
  Schema<BenchmarkResult>::forEach(b, [&](const FieldInfo& f, auto& m) {
    const nb::str key(f.key.data(), f.key.size());
    if (!d.contains(key) || d[key].is_none()) return;
    using M = std::remove_cvref_t<decltype(m)>;
    try {
      if constexpr (requires { m.has_value(); }) {
        m = nb::cast<typename M::value_type>(d[key]);
      } else {
        m = nb::cast<M>(d[key]);
      }
    } catch (const nb::cast_error&) {
      throw nb::type_error(
          ("benchmark field '" + std::string(f.key) + "' has the wrong type").c_str());
    }
  });
  return b;
}

nb::dict summarize(const std::vector<double>& rep_ns, uint64_t ops_per_rep,
                   double launch_overhead_ns, const std::vector<int>& clk_sm_mhz,
                   std::optional<int> clk_sm_limit_mhz,
                   const std::vector<std::string>& throttle_reasons,
                   const std::vector<std::string>& other_processes, const nb::dict& meta) {
  core::BenchSamples s;
  s.rep_ns = rep_ns;
  s.ops_per_rep = ops_per_rep;
  s.launch_overhead_ns = launch_overhead_ns;
  s.clk_sm_mhz = clk_sm_mhz;
  s.clk_sm_limit_mhz = clk_sm_limit_mhz;
  s.throttle_reasons = throttle_reasons;
  s.other_processes = other_processes;
  BenchmarkResult b = fromDict(meta);
  std::string error;
  if (!core::summarizeBench(s, b, &error)) throw nb::value_error(("gpufl.bench: " + error).c_str());
  return toDict(b);
}

nb::object peaks(const std::string& device_name) {
  const auto p = core::devicePeaks(device_name);
  if (!p) return nb::none();
  nb::dict d;
  d["name"] = std::string(p->name);
  for (const char* dtype : {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"})
    d[dtype] = core::peakTflops(*p, dtype);
  d["gbps"] = p->gbps;
  return d;
}

double peak(const std::string& device_name, const std::string& dtype) {
  const auto p = core::devicePeaks(device_name);
  return p ? core::peakTflops(*p, dtype) : 0;
}

bool record(const nb::dict& d) {
  return recordBenchmark(runtime::publicResult(fromDict(d)));
}

}  // namespace

void bindBench(nb::module_& m) {
  m.def("summarize_benchmark", &summarize, nb::arg("rep_ns"), nb::arg("ops_per_rep"),
        nb::arg("launch_overhead_ns"), nb::arg("clk_sm_mhz"), nb::arg("clk_sm_limit_mhz").none(),
        nb::arg("throttle_reasons"), nb::arg("other_processes"), nb::arg("meta"),
        "Statistics and warnings of timed repetitions (ns each) -> a benchmark record as a dict.");
  m.def("device_peaks", &peaks, nb::arg("device_name"),
        "Data-sheet peaks of a GPU by its name (TFLOP/s per dtype, gbps), or None when unknown.");
  m.def("peak_tflops", &peak, nb::arg("device_name"), nb::arg("dtype"),
        "The data-sheet peak TFLOP/s of a GPU for a dtype name (fp32, bf16, torch.float16, ...); 0 "
        "if unknown.");
  m.def("record_benchmark", &record, nb::arg("result"),
        "Writes a benchmark record (dict) into the recording session; False when none records.");
  m.def("throttle_reason_names", &nvml::throttleReasonNames, nb::arg("mask"),
        "Names of NVML's clock event (throttle) reason bits, as system samples write them.");
  m.attr("MAX_TRUSTED_SPREAD") = core::kMaxTrustedSpread;
}

}  // namespace gpufl::py
