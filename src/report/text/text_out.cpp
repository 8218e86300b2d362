#include "report/text/text_out.hpp"

#include "core/terminal_text.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {

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
  const std::string head =
      std::string(indent, ' ') + padRight(std::string(label) + ":", label_width);
  // Values may be aligned with runs of spaces: kept when the line fits.
  fitted(value, kRuleWidth, head, std::string(displayWidth(head), ' '));
}

void TextOut::dashes(size_t width, size_t indent) {
  line(std::string(indent, ' ') + std::string(width, '-'));
}

void TextOut::wrapped(std::string_view text, size_t width, std::string_view first,
                      std::string_view rest) {
  for (const std::string& l : wrapText(text, width, first, rest)) line(l);
}

void TextOut::fitted(std::string_view text, size_t width, std::string_view first,
                     std::string_view rest) {
  if (displayWidth(first) + displayWidth(text) <= width)
    line(std::string(first) + std::string(text));
  else
    wrapped(text, width, first, rest);
}

std::string patchedSamplesText(uint64_t patched, uint64_t total) {
  return (patched >= total ? std::string("all") : formatCount(patched) + " of them") +
         " on the launch SASS metrics instrumented (the only one sampled): stalls lean toward Wait";
}

}  // namespace gpufl::report
