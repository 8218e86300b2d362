// Section "Trace Health": whether the records above can be trusted (docs/trace-health.md). All
// good is one line; otherwise each problem with how much, since when and what it means for the
// figures above, then what gpufl itself cost and what is known wrong in its CUPTI. Computed with
// the model (aggregate/trace_health.cpp); JSON "trace_health" through its field table
// (model/trace_health_model.hpp).
#include "report/sections/section.hpp"

namespace gpufl::report {

// In namespace gpufl::report: HealthExample is the log's type (namespace gpufl), found here through
// the Report argument.
GFL_REPORT_JSON_FIELDS(HealthExample)
GFL_REPORT_JSON_FIELDS(TraceHealthIssue)
GFL_REPORT_JSON_FIELDS(TraceHealth)

namespace sections {
namespace {

void wrappedField(TextOut& out, const char* label, const std::string& value) {
  out.wrapped(value, kRuleWidth, "  " + padRight(std::string(label) + ":", kTopLabelWidth),
              std::string(2 + kTopLabelWidth, ' '));
}

std::string sinceText(const TraceHealthIssue& i, const Report& r) {
  if (!i.since_ns || !r.session.started) return "";
  return ", since " + formatDuration(static_cast<double>(*i.since_ns - r.session.start_ns)) +
         " into the session";
}

std::string costText(const TraceHealth& t) {
  std::string text = formatFixed(t.cpu_pct, 2) + "% of a core over the session (costliest period " +
                     formatFixed(t.cpu_pct_max, 2) + "%)";
  std::string roles;
  for (const auto& [role, ns] : t.cpu_ns)
    roles += (roles.empty() ? "" : ", ") + role + " " + formatDuration(static_cast<double>(ns));
  if (!roles.empty()) text += ": " + roles;
  text += "; its buffers held at most " + formatBytes(t.buffer_bytes_max);
  if (t.rss_growth_bytes) {
    const int64_t g = *t.rss_growth_bytes;
    text += "; the process's resident memory " + std::string(g < 0 ? "-" : "+") +
            formatBytes(static_cast<uint64_t>(g < 0 ? -g : g)) + " from the first health record";
  }
  return text;
}

std::string clockText(const TraceHealth& t) {
  if (t.clock_mode.empty() || t.clock_mode == "unwatched")
    return t.clock_mode.empty() ? "" : "not watched (CUPTI's clock does not follow gpufl's)";
  std::string text = t.clock_mode + " mode";
  if (t.clock_drift_ns)
    text += ", drift " + formatDuration(static_cast<double>(
                             *t.clock_drift_ns < 0 ? -*t.clock_drift_ns : *t.clock_drift_ns));
  if (t.clock_correction_ns && *t.clock_correction_ns != 0)
    text += ", records corrected by " +
            formatDuration(static_cast<double>(
                *t.clock_correction_ns < 0 ? -*t.clock_correction_ns : *t.clock_correction_ns));
  return text;
}

std::string exampleText(const HealthExample& e) {
  std::string text = e.kind + " (" + e.record;
  if (e.correlation_id != 0) text += ", corr " + std::to_string(e.correlation_id);
  text += "): start_ns " + std::to_string(e.start_ns) + ", end_ns " + std::to_string(e.end_ns) +
          ", reference_ns " + std::to_string(e.reference_ns);
  if (e.record == "clock") text += ", offset_ns " + std::to_string(e.offset_ns);
  return text;
}

void writeText(TextOut& out, const Report& r, const ReportOptions& options) {
  const TraceHealth& t = r.trace_health;
  if (t.healthy) {
    std::string line =
        t.checked == 0 && t.read == 0 ? "healthy: no kernel or copy records, nothing lost"
        : t.health_records > 0
            ? "healthy: " + formatCount(t.checked) + " records checked, none invalid or lost"
            : "healthy as read: " + formatCount(t.read) + " records, none invalid or lost";
    wrappedField(out, "Trace Health", line);
    if (options.verbose) {
      if (t.health_records > 0) wrappedField(out, "gpufl's Cost", costText(t));
      for (const std::string& issue : t.cupti_issues) wrappedField(out, "Known Issue", issue);
    }
    return;
  }
  out.banner("Trace Health");
  std::string verdict =
      formatCount(t.issues.size()) + (t.issues.size() == 1 ? " problem" : " problems") + " (";
  verdict += t.health_records > 0 ? formatCount(t.checked) + " records checked as written)"
                                  : formatCount(t.read) + " records checked as read)";
  wrappedField(out, "Verdict", verdict);
  for (const TraceHealthIssue& i : t.issues)
    out.wrapped(i.kind + ": " + i.what + sinceText(i, r) + ". Means: " + i.meaning + ".",
                kRuleWidth, "  * ", "    ");
  if (t.health_records > 0) wrappedField(out, "gpufl's Cost", costText(t));
  if (const std::string clock = clockText(t); !clock.empty()) wrappedField(out, "Clock", clock);
  for (const std::string& issue : t.cupti_issues) wrappedField(out, "Known Issue", issue);
  if (!t.examples.empty()) {
    if (!options.verbose) {
      out.line("  (gpufl report --verbose: the first records of each kind)");
    } else {
      for (const HealthExample& e : t.examples) wrappedField(out, "Example", exampleText(e));
    }
  }
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "trace_health", r.trace_health, r);
}

}  // namespace

extern const Section kTraceHealth = {.name = "trace_health", .text = writeText, .json = writeJson};

}  // namespace sections
}  // namespace gpufl::report
