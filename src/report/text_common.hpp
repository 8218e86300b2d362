// Building blocks of the text report (internal to src/report): section banners, label/value lines,
// and the section renderers, one file per group of sections.
#pragma once

#include <string>
#include <string_view>

#include "report/format.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"

namespace gpufl::report::text {

inline constexpr size_t kRuleWidth = 79;      // "=====" banners
inline constexpr size_t kTopLabelWidth = 22;  // "  Application:          "
inline constexpr size_t kSubLabelWidth = 20;  // "    SMs:                "
// "all" or "N of the" samples taken on SASS-patched code (pc_sample `patched`), and why it matters.
std::string patchedSamplesText(uint64_t patched, uint64_t total);

class TextOut {
 public:
  // Appends `s` and a newline; trailing spaces are dropped so that goldens compare cleanly. The one
  // sink of every section: control characters from the log (names, notes) are escaped here
  // (terminalSafe), so no renderer can print them raw. A name that needed escaping may then
  // misalign its table row.
  void line(std::string_view s = {});
  // Three lines: rule, "  title", rule.
  void banner(std::string_view title);
  // indent + "label:" padded to label_width + value.
  void field(size_t indent, std::string_view label, size_t label_width, std::string_view value);
  // A line of '-' `width` wide, after a two-space indent.
  void dashes(size_t width, size_t indent = 2);
  // Word-wrapped paragraph: first line starts with `first`, the others with `rest`.
  void wrapped(std::string_view text, size_t width, std::string_view first, std::string_view rest);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

void renderHeader(TextOut& out, const ReportOptions& options);
void renderSession(TextOut& out, const Report& r);
void renderKernelSummary(TextOut& out, const Report& r);
void renderTopKernels(TextOut& out, const Report& r, const ReportOptions& options);
void renderKernelDetails(TextOut& out, const Report& r, const ReportOptions& options);
void renderCards(TextOut& out, const Report& r, const ReportOptions& options);
void renderTransfers(TextOut& out, const Report& r);
void renderSystem(TextOut& out, const Report& r);
void renderScopes(TextOut& out, const Report& r);
void renderProfile(TextOut& out, const Report& r);
void renderHints(TextOut& out, const Report& r);
void renderCollection(TextOut& out, const Report& r, const ReportOptions& options);
void renderBenchmarks(TextOut& out, const Report& r);  // nothing when there are none

}  // namespace gpufl::report::text
