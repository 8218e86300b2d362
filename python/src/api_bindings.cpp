// The public C++ API (include/gpufl/gpufl.hpp) and the report, as flat functions; python/gpufl/ wraps them.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "core/demangle.hpp"
#include "core/stall_labels.hpp"
#include "gpufl/gpufl.hpp"
#include "gpufl/version.hpp"
#include "report/profile_stats.hpp"
#include "report/ranks.hpp"
#include "report/report.hpp"
#include "report/short_names.hpp"

namespace nb = nanobind;

namespace gpufl::py {
namespace {

bool initPy(const std::string& app_name, const std::string& log_path, bool sampling_auto_start,
            int system_sample_rate_ms, bool enable_kernel_details, bool enable_stack_trace,
            bool enable_debug_output, int profiling_engine, int deep_launches_per_kernel, uint64_t rotate_bytes,
            bool enable_nvtx, bool enable_sync_events, bool enable_memory_events) {
  if (profiling_engine < static_cast<int>(ProfilingEngine::None) ||
      profiling_engine > static_cast<int>(ProfilingEngine::RangeProfiler)) {
    throw nb::value_error("profiling_engine out of range");
  }
  InitOptions o;
  o.app_name = app_name;
  o.log_path = log_path;
  o.sampling_auto_start = sampling_auto_start;
  o.system_sample_rate_ms = system_sample_rate_ms;
  o.enable_kernel_details = enable_kernel_details;
  o.enable_stack_trace = enable_stack_trace;
  o.enable_debug_output = enable_debug_output;
  o.profiling_engine = static_cast<ProfilingEngine>(profiling_engine);
  o.deep_launches_per_kernel = deep_launches_per_kernel;
  o.rotate_bytes = rotate_bytes;
  o.enable_nvtx = enable_nvtx;
  o.enable_sync_events = enable_sync_events;
  o.enable_memory_events = enable_memory_events;
  nb::gil_scoped_release release;  // CUPTI/NVML setup may take a while; other Python threads run meanwhile
  return init(o);
}

// (ok, text, warnings, error)
nb::tuple reportPy(const std::string& prefix, const std::string& session, int top_n, bool as_json) {
  report::ReportOutput out;
  {
    nb::gil_scoped_release release;
    report::ReportOptions options;
    options.top_n = top_n;
    out = report::reportFromPrefix(prefix, session, options, as_json);
  }
  return nb::make_tuple(out.ok, out.text, out.warnings, out.error);
}

// (ok, text, warnings, error) of several prefixes compared as the ranks of one job (report/ranks.hpp).
nb::tuple reportRanksPy(const std::vector<std::string>& prefixes, const std::string& session, int top_n) {
  report::ReportOutput out;
  {
    nb::gil_scoped_release release;
    report::ReportOptions options;
    options.top_n = top_n;
    out = report::reportFromPrefixes(prefixes, session, options);
  }
  return nb::make_tuple(out.ok, out.text, out.warnings, out.error);
}

}  // namespace

void bindApi(nb::module_& m) {
  m.attr("VERSION") = kVersion;

  // The engine names and values of the C++ enum: python/gpufl builds its ProfilingEngine from this.
  nb::dict engines;
  engines["None"] = static_cast<int>(ProfilingEngine::None);
  engines["PcSampling"] = static_cast<int>(ProfilingEngine::PcSampling);
  engines["SassMetrics"] = static_cast<int>(ProfilingEngine::SassMetrics);
  engines["PcSamplingWithSass"] = static_cast<int>(ProfilingEngine::PcSamplingWithSass);
  engines["RangeProfiler"] = static_cast<int>(ProfilingEngine::RangeProfiler);
  m.attr("ENGINES") = engines;

  InitOptions defaults;
  m.attr("DEFAULT_DEEP_LAUNCHES_PER_KERNEL") = defaults.deep_launches_per_kernel;
  m.attr("DEFAULT_ROTATE_BYTES") = defaults.rotate_bytes;

  m.def("init", &initPy, nb::arg("app_name"), nb::arg("log_path"), nb::arg("sampling_auto_start"),
        nb::arg("system_sample_rate_ms"), nb::arg("enable_kernel_details"), nb::arg("enable_stack_trace"),
        nb::arg("enable_debug_output"), nb::arg("profiling_engine"), nb::arg("deep_launches_per_kernel"),
        nb::arg("rotate_bytes"), nb::arg("enable_nvtx") = true, nb::arg("enable_sync_events") = false,
        nb::arg("enable_memory_events") = false);
  m.def("shutdown", &shutdown, nb::call_guard<nb::gil_scoped_release>());
  m.def("is_profiling", &isProfiling);
  m.def("is_recording", &isRecording);
  m.def("start_system_sampling", &startSystemSampling, nb::call_guard<nb::gil_scoped_release>());
  m.def("stop_system_sampling", &stopSystemSampling, nb::call_guard<nb::gil_scoped_release>());
  // Scopes keep the GIL: they cost tens of nanoseconds and releasing it would cost more.
  m.def("scope_begin", [](std::string_view name, std::string_view tag) { return scopeBegin(name, tag); },
        nb::arg("name"), nb::arg("tag") = "");
  m.def("scope_end", &scopeEnd, nb::arg("id"));

  m.def("report", &reportPy, nb::arg("prefix"), nb::arg("session") = "", nb::arg("top_n") = 10,
        nb::arg("as_json") = false);
  m.def("report_ranks", &reportRanksPy, nb::arg("prefixes"), nb::arg("session") = "",
        nb::arg("top_n") = 10);
  m.def("short_kernel_name", [](std::string_view name) { return readableKernelName(name); }, nb::arg("name"));
  // Short names for a set of kernels, distinct where the names differ (report/short_names.hpp).
  m.def(
      "short_names",
      [](const std::vector<std::string>& names, size_t width, const std::string& ellipsis) {
        return report::shortNames(names, width, {.ellipsis = ellipsis});
      },
      nb::arg("names"), nb::arg("width"), nb::arg("ellipsis") = "\xE2\x80\xA6");
  m.def("demangle", [](std::string_view name) { return demangle(name); }, nb::arg("name"));
  // The one table of stall labels ("LG Throttle (idle)"), so the analyzer's tables read like the report.
  m.def("stall_label", [](std::string_view reason) { return stallLabel(reason); },
        nb::arg("reason"));
}

}  // namespace gpufl::py
