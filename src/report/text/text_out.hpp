// The text report's output: lines, banners, label/value fields, wrapped paragraphs, and the widths
// every section lines up to.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpufl::report {

inline constexpr size_t kRuleWidth = 79;      // "=====" banners
inline constexpr size_t kTopLabelWidth = 22;  // "  Application:          "
inline constexpr size_t kSubLabelWidth = 20;  // "    SMs:                "

class TextOut {
 public:
  // Appends `s` and a newline; trailing spaces are dropped so that goldens compare cleanly. The one
  // sink of every section: control characters from the log (names, notes) are escaped here
  // (terminalSafe), so no renderer can print them raw. A name that needed escaping may then
  // misalign its table row.
  void line(std::string_view s = {});
  // Three lines: rule, "  title", rule.
  void banner(std::string_view title);
  // indent + "label:" padded to label_width + value; a value past kRuleWidth is wrapped under
  // itself.
  void field(size_t indent, std::string_view label, size_t label_width, std::string_view value);
  // A line of '-' `width` wide, after a two-space indent.
  void dashes(size_t width, size_t indent = 2);
  // Word-wrapped paragraph: first line starts with `first`, the others with `rest`.
  void wrapped(std::string_view text, size_t width, std::string_view first, std::string_view rest);
  // `first` + `text` as given (runs of spaces kept) when it fits in `width`, else wrapped().
  void fitted(std::string_view text, size_t width, std::string_view first, std::string_view rest);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// "all" or "N of them" of `total` PC samples were taken on SASS-patched code (pc_sample `patched`),
// and why that matters.
std::string patchedSamplesText(uint64_t patched, uint64_t total);

}  // namespace gpufl::report
