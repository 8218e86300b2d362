// Section "Session Summary": the application, the session, its duration and its GPUs, and what the
// reader found missing from the log.
#include "core/clock.hpp"
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
namespace {

void devices(TextOut& out, const SessionSummary& s) {
  if (s.devices.empty()) {
    out.field(2, "GPU Device", kTopLabelWidth, "(no device information in the log)");
    return;
  }
  for (const DeviceInfo& d : s.devices) {
    std::string name = d.name.empty() ? "(unnamed)" : d.name;
    if (s.devices.size() > 1) {
      std::string tagged = "[";
      tagged += std::to_string(d.id);
      name = tagged + "] " + name;
    }
    out.field(2, "GPU Device", kTopLabelWidth, name);
    if (d.cc_major > 0)
      out.field(4, "Compute Capability", kSubLabelWidth,
                std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
    if (d.sm_count > 0) out.field(4, "SMs", kSubLabelWidth, std::to_string(d.sm_count));
    if (d.regs_per_block > 0)
      out.field(4, "Registers/Block", kSubLabelWidth, std::to_string(d.regs_per_block));
    if (d.smem_per_block_bytes > 0)
      out.field(4, "Shared Mem/Block", kSubLabelWidth,
                formatBytes(static_cast<uint64_t>(d.smem_per_block_bytes)));
    if (d.l2_bytes > 0)
      out.field(4, "L2 Cache", kSubLabelWidth, formatBytes(static_cast<uint64_t>(d.l2_bytes)));
  }
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  const SessionSummary& s = r.session;
  out.banner("Session Summary");
  out.field(2, "Application", kTopLabelWidth, s.app.empty() ? "(unknown)" : s.app);
  out.field(2, "Session ID", kTopLabelWidth, s.session_id.empty() ? s.sid : s.session_id);
  if (!s.log_incomplete.empty()) {
    std::string text;
    for (const std::string& phrase : s.log_incomplete) text += (text.empty() ? "" : "; ") + phrase;
    out.wrapped(text, kRuleWidth, "  " + padRight("Log Incomplete:", kTopLabelWidth),
                std::string(2 + kTopLabelWidth, ' '));
  }
  if (s.start_unix_ns > 0) out.field(2, "Started", kTopLabelWidth, core::utcText(s.start_unix_ns));
  std::string duration = formatDuration(static_cast<double>(s.duration_ns));
  if (!s.ended) duration += " (no session_end: up to the last record)";
  out.field(2, "Duration", kTopLabelWidth, duration);
  devices(out, s);
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "session", r.session, r);
}

}  // namespace

extern const Section kSession = {.name = "session", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
