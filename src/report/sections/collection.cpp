// Section "Collection Notes": what was recorded, what was not and why, what was lost, what gpufl
// itself cost; everything, with --verbose.
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
namespace {

void wrappedField(TextOut& out, const char* label, const std::string& value) {
  out.wrapped(value, kRuleWidth, "  " + padRight(std::string(label) + ":", kTopLabelWidth),
              std::string(2 + kTopLabelWidth, ' '));
}

// One indented line per source / thread kind, under the field that totals them.
void breakdown(TextOut& out, const std::map<std::string, uint64_t>& m, bool as_duration) {
  for (const auto& [k, v] : m)
    out.field(4, k, kSubLabelWidth,
              as_duration ? formatDuration(static_cast<double>(v)) : formatCount(v));
}

uint64_t droppedTotal(const CollectionInfo& c) {
  uint64_t dropped = 0;
  for (const auto& [k, v] : c.dropped) dropped += v;
  return dropped;
}

std::string droppedText(const CollectionInfo& c) {
  const uint64_t dropped = droppedTotal(c);
  std::string total = dropped == 0 ? "none" : formatCount(dropped);
  if (auto w = c.dropped.find("write"); w != c.dropped.end() && w->second > 0)
    total += " (" + formatCount(w->second) + " could not be written to the log)";
  return total;
}

void logIssues(TextOut& out, const Report& r) {
  const CollectionInfo& c = r.collection;
  if (c.reader_warnings > 0)
    out.field(2, "Reader Warnings", kTopLabelWidth,
              formatCount(c.reader_warnings) + " (lines skipped; details on stderr)");
  if (r.kernels.undefined_refs > 0)
    wrappedField(
        out, "Log Issues",
        formatCount(r.kernels.undefined_refs) + " kernel events named a kernel_def never seen");
}

// The default: what was recorded, what was not and why, what was lost, what gpufl cost; a few
// lines. Everything else is behind --verbose.
void renderCollectionShort(TextOut& out, const Report& r) {
  const CollectionInfo& c = r.collection;
  const SessionSummary& s = r.session;
  std::string engine = s.started ? std::string(engineName(s.engine))
                                 : std::string("unknown (no session_start in the log)");
  if (s.started && !s.version.empty()) engine += " (gpufl " + s.version + ")";
  out.field(2, "Engine", kTopLabelWidth, engine);
  std::string on;
  for (const Note& n : c.notes)
    if (n.status == "on" && n.feature != "gpufl_time" &&
        (", " + on + ", ").find(", " + n.feature + ", ") == std::string::npos)
      on += (on.empty() ? "" : ", ") + n.feature;
  if (!on.empty()) wrappedField(out, "Recorded", on);
  for (const Note& n : c.notes) {
    if (n.status == "on") continue;
    out.wrapped(n.status + (n.reason.empty() ? "" : " — " + n.reason), kRuleWidth,
                "  " + padRight(n.feature + ":", kTopLabelWidth),
                std::string(2 + kTopLabelWidth, ' '));
  }
  if (!s.ended) {
    wrappedField(out, "Session End",
                 "missing (the program may have stopped early); drops and overhead unknown");
  } else {
    out.field(2, "Dropped Records", kTopLabelWidth, droppedText(c));
    uint64_t busy = 0;
    for (const auto& [k, v] : c.overhead_ns) busy += v;
    out.field(2, "gpufl Overhead", kTopLabelWidth,
              formatDuration(static_cast<double>(c.cpu_time_ns)) + " CPU, " +
                  formatDuration(static_cast<double>(busy)) + " busy on its own threads");
  }
  logIssues(out, r);
  out.line("  (gpufl report --verbose: every feature note and gpufl's own costs)");
}

void writeText(TextOut& out, const Report& r, const ReportOptions& options) {
  out.banner("Collection Notes");
  if (!options.verbose) return renderCollectionShort(out, r);
  const CollectionInfo& c = r.collection;
  const SessionSummary& s = r.session;
  if (s.started) {
    out.field(2, "Engine", kTopLabelWidth, engineName(s.engine));
    if (!s.version.empty()) out.field(2, "gpufl Version", kTopLabelWidth, s.version);
    if (!s.host.empty())
      out.field(2, "Host", kTopLabelWidth, s.host + " (pid " + std::to_string(s.pid) + ")");
  } else {
    out.field(2, "Engine", kTopLabelWidth, "unknown (no session_start in the log)");
  }
  if (c.notes.empty()) {
    out.field(2, "Features", kTopLabelWidth, "no notes recorded");
  } else {
    out.line("  Features:");
    for (const Note& n : c.notes) {
      std::string text = n.status + (n.reason.empty() ? "" : " — " + n.reason);
      out.wrapped(text, kRuleWidth, "    " + padRight(n.feature + ":", kSubLabelWidth),
                  std::string(4 + kSubLabelWidth, ' '));
    }
  }
  if (!s.ended) {
    wrappedField(out, "Session End",
                 "missing (the program may have stopped early); drops and overhead unknown");
  } else {
    out.field(2, "Dropped Records", kTopLabelWidth, droppedText(c));
    if (droppedTotal(c) > 0) breakdown(out, c.dropped, false);
    // Time gpufl's own threads (writer, samplers) were busy: wall time off the program's threads,
    // so it is not a slowdown of the program; a sampler blocked in a slow NVML call counts here.
    // CPU time follows.
    uint64_t overhead = 0;
    for (const auto& [k, v] : c.overhead_ns) overhead += v;
    out.field(2, "gpufl Thread Busy", kTopLabelWidth,
              formatDuration(static_cast<double>(overhead)) +
                  " (own threads, off the program's threads)");
    breakdown(out, c.overhead_ns, true);
    out.field(2, "gpufl CPU Time", kTopLabelWidth,
              formatDuration(static_cast<double>(c.cpu_time_ns)));
    out.field(2, "CUPTI Buffers", kTopLabelWidth, formatCount(c.buffers));
    out.field(2, "Bytes Written", kTopLabelWidth, formatBytes(c.bytes_written));
  }
  out.field(2, "Records Read", kTopLabelWidth, formatCount(c.records));
  out.field(2, "Reader Warnings", kTopLabelWidth,
            c.reader_warnings == 0
                ? "none"
                : formatCount(c.reader_warnings) + " (lines skipped; details on stderr)");
  if (r.kernels.undefined_refs > 0)
    wrappedField(
        out, "Log Issues",
        formatCount(r.kernels.undefined_refs) + " kernel events named a kernel_def never seen");
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "collection", r.collection, r);
}

}  // namespace

extern const Section kCollection = {.name = "collection", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
