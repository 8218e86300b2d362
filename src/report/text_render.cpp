// renderText and the parts every section uses: output buffer, banners, header, session summary.
#include <ctime>

#include "core/clock.hpp"
#include "core/terminal_text.hpp"
#include "report/incidents.hpp"
#include "report/text_common.hpp"

namespace gpufl::report {
namespace text {

void TextOut::line(std::string_view raw) {
  const std::string safe = terminalSafe(raw);
  const std::string_view s = safe;
  size_t end = s.find_last_not_of(' ');
  out_.append(s.substr(0, end == std::string_view::npos ? 0 : end + 1));
  out_ += '\n';
}

void TextOut::banner(std::string_view title) {
  std::string rule(kRuleWidth, '=');
  line(rule);
  line("  " + std::string(title));
  line(rule);
}

void TextOut::field(size_t indent, std::string_view label, size_t label_width,
                    std::string_view value) {
  line(std::string(indent, ' ') + padRight(std::string(label) + ":", label_width) +
       std::string(value));
}

void TextOut::dashes(size_t width, size_t indent) {
  line(std::string(indent, ' ') + std::string(width, '-'));
}

void TextOut::wrapped(std::string_view text, size_t width, std::string_view first,
                      std::string_view rest) {
  for (const std::string& l : wrapText(text, width, first, rest)) line(l);
}

std::string patchedSamplesText(uint64_t patched, uint64_t total) {
  return (patched >= total ? std::string("all") : formatCount(patched) + " of them") +
         " on the launch SASS metrics instrumented (the only one sampled): stalls lean toward Wait";
}

void renderHeader(TextOut& out, const ReportOptions& options) {
  std::string rule(kRuleWidth, '=');
  out.line(rule);
  out.line(centerText("GPU Flight Session Report", kRuleWidth));
  out.line(centerText("Generated: " + generatedAt(options), kRuleWidth));
  out.line(rule);
}

void renderSession(TextOut& out, const Report& r) {
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
  if (s.devices.empty()) {
    out.field(2, "GPU Device", kTopLabelWidth, "(no device information in the log)");
    return;
  }
  for (const DeviceInfo& d : s.devices) {
    std::string name = d.name.empty() ? "(unnamed)" : d.name;
    if (s.devices.size() > 1) name = "[" + std::to_string(d.id) + "] " + name;
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

}  // namespace text

std::string generatedAt(const ReportOptions& options) {
  if (!options.generated_at.empty()) return options.generated_at;
  std::timespec ts{};
  std::timespec_get(&ts, TIME_UTC);
  return core::utcText(static_cast<int64_t>(ts.tv_sec) * 1000000000);
}

std::string renderText(const Report& r, const ReportOptions& options) {
  using namespace text;
  TextOut out;
  renderHeader(out, options);
  if (incidentsInText(r)) {  // first: what went wrong
    out.line();
    renderIncidentsText(out, r, options);
  }
  void (*const sections[])(TextOut&, const Report&) = {renderSession, renderKernelSummary};
  for (auto section : sections) {
    out.line();
    section(out, r);
  }
  // Without kernels the summary's "No kernels recorded." says it all: no empty "Top N" sections.
  if (!r.kernels.groups.empty()) {
    out.line();
    renderTopKernels(out, r, options);
    out.line();
    renderKernelDetails(out, r, options);
    out.line();
    renderCards(out, r, options);
  }
  renderBenchmarks(out, r);
  void (*const rest[])(TextOut&, const Report&) = {renderTransfers, renderSystem, renderScopes,
                                                   renderProfile, renderHints};
  for (auto section : rest) {
    out.line();
    section(out, r);
  }
  out.line();
  renderCollection(out, r, options);
  return out.take();
}

}  // namespace gpufl::report
