// The public C++ API (include/gpufl/gpufl.hpp) and the report, as flat functions; python/gpufl/
// wraps them.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "core/demangle.hpp"
#include "core/stall_labels.hpp"
#include "gpufl/gpufl.hpp"
#include "gpufl/version.hpp"
#include "report/aggregate/profile_stats.hpp"
#include "report/ranks/ranks.hpp"
#include "report/report.hpp"
#include "report/text/short_names.hpp"

namespace nb = nanobind;

namespace gpufl::py {
namespace {

// One keyword's value into its InitOptions member, by the member's type. python/gpufl/_api.py
// converts the user's values (engine names, None for the default) before they get here, so this is
// strict.
void setOption(std::string& member, nb::handle value) {
  member = nb::cast<std::string>(value);
}
void setOption(bool& member, nb::handle value) {
  member = nb::cast<bool>(value);
}
void setOption(int& member, nb::handle value) {
  member = nb::cast<int>(value);
}
void setOption(std::uint64_t& member, nb::handle value) {
  member = nb::cast<std::uint64_t>(value);
}
void setOption(ProfilingEngine& member, nb::handle value) {
  const int v = nb::cast<int>(value);
  if (v < static_cast<int>(ProfilingEngine::None) ||
      v > static_cast<int>(ProfilingEngine::RangeProfiler))
    throw nb::value_error("profiling_engine out of range");
  member = static_cast<ProfilingEngine>(v);
}

// A default as Python sees it: the engine by its value (python/gpufl builds its enum from ENGINES).
// The type column as _api.py names it.
const char* optionTypeName(const std::string&) {
  return "str";
}
const char* optionTypeName(bool) {
  return "bool";
}
const char* optionTypeName(int) {
  return "int";
}
const char* optionTypeName(std::uint64_t) {
  return "int";
}
const char* optionTypeName(ProfilingEngine) {
  return "ProfilingEngine";
}

nb::object pyDefault(const std::string& v) {
  return nb::str(v.c_str());
}
nb::object pyDefault(bool v) {
  return nb::bool_(v);
}
nb::object pyDefault(int v) {
  return nb::int_(v);
}
nb::object pyDefault(std::uint64_t v) {
  return nb::int_(v);
}
nb::object pyDefault(ProfilingEngine v) {
  return nb::int_(static_cast<int>(v));
}

// init(**options): every keyword is a row of GFL_INIT_OPTIONS (include/gpufl/init_options.hpp); a
// keyword the table lacks is a TypeError, as for any Python function.
bool initPy(nb::kwargs options) {
  InitOptions o;
  for (auto [key, value] : options) {
    const std::string name = nb::cast<std::string>(key);
    bool known = false;
#define GFL_SET_OPTION_(type, member, default_value, env, doc) \
  if (name == #member) {                                       \
    try {                                                      \
      setOption(o.member, value);                              \
    } catch (const nb::cast_error&) {                          \
      throw nb::type_error("init(): wrong type for " #member); \
    }                                                          \
    known = true;                                              \
  }
    GFL_INIT_OPTIONS(GFL_SET_OPTION_)
#undef GFL_SET_OPTION_
    if (!known)
      throw nb::type_error(("init() got an unexpected keyword argument '" + name + "'").c_str());
  }
  nb::gil_scoped_release
      release;  // CUPTI/NVML setup may take a while; other Python threads run meanwhile
  return init(o);
}

// (ok, text, warnings, error)
nb::tuple reportPy(const std::string& prefix, const std::string& session, int top_n, bool as_json,
                   bool verbose, bool wide) {
  report::ReportOutput out;
  {
    nb::gil_scoped_release release;
    report::ReportOptions options;
    options.top_n = top_n;
    options.verbose = verbose;
    options.wide_names = wide;
    out = report::reportFromPrefix(prefix, session, options, as_json);
  }
  return nb::make_tuple(out.ok, out.text, out.warnings, out.error);
}

// (ok, text, warnings, error) of several prefixes compared as the ranks of one job
// (report/ranks.hpp).
nb::tuple reportRanksPy(const std::vector<std::string>& prefixes, const std::string& session,
                        int top_n) {
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

  // The option table: (name, type, default, environment variable, doc) per row, in the struct's
  // order. python/gpufl/_api.py converts init()'s keywords by it; python/tests/test_init_options.py
  // checks them.
  nb::list table;
  const InitOptions defaults;
#define GFL_OPTION_ROW_(type, member, default_value, env, doc)          \
  table.append(nb::make_tuple(#member, optionTypeName(defaults.member), \
                              pyDefault(defaults.member), env, doc));
  GFL_INIT_OPTIONS(GFL_OPTION_ROW_)
#undef GFL_OPTION_ROW_
  m.attr("INIT_OPTIONS") = table;

  m.def("init", &initPy);
  m.def("shutdown", &shutdown, nb::call_guard<nb::gil_scoped_release>());
  m.def("is_profiling", &isProfiling);
  m.def("is_recording", &isRecording);
  m.def(
      "dump", [](std::string_view reason) { return dump(reason); },
      nb::arg("reason") = "asked by the program", nb::call_guard<nb::gil_scoped_release>());
  m.def("start_system_sampling", &startSystemSampling, nb::call_guard<nb::gil_scoped_release>());
  m.def("stop_system_sampling", &stopSystemSampling, nb::call_guard<nb::gil_scoped_release>());
  // Scopes keep the GIL: they cost tens of nanoseconds and releasing it would cost more.
  m.def(
      "scope_begin",
      [](std::string_view name, std::string_view tag) { return scopeBegin(name, tag); },
      nb::arg("name"), nb::arg("tag") = "");
  m.def("scope_end", &scopeEnd, nb::arg("id"));

  m.def("report", &reportPy, nb::arg("prefix"), nb::arg("session") = "", nb::arg("top_n") = 10,
        nb::arg("as_json") = false, nb::arg("verbose") = false, nb::arg("wide") = false);
  m.def("report_ranks", &reportRanksPy, nb::arg("prefixes"), nb::arg("session") = "",
        nb::arg("top_n") = 10);
  m.def(
      "short_kernel_name", [](std::string_view name) { return readableKernelName(name); },
      nb::arg("name"));
  // Short names for a set of kernels, distinct where the names differ (report/short_names.hpp).
  m.def(
      "short_names",
      [](const std::vector<std::string>& names, size_t width, const std::string& ellipsis) {
        return report::shortNames(names, width, {.ellipsis = ellipsis});
      },
      nb::arg("names"), nb::arg("width"), nb::arg("ellipsis") = "\xE2\x80\xA6");
  m.def(
      "demangle", [](std::string_view name) { return demangle(name); }, nb::arg("name"));
  // The one table of stall labels ("LG Throttle (idle)"), so the analyzer's tables read like the
  // report.
  m.def(
      "stall_label", [](std::string_view reason) { return stallLabel(reason); }, nb::arg("reason"));
}

}  // namespace gpufl::py
