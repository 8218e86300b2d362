#include "report/text/format.hpp"

#include <cmath>
#include <cstdio>

#include "core/demangle.hpp"

namespace gpufl::report {
namespace {

std::string printf1(const char* pattern, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, pattern, v);
  return buf;
}

// Replaces every outermost template argument list with "<...>".
std::string collapseTemplates(std::string_view s) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '<') {
      if (depth++ == 0) out += "<...>";
      continue;
    }
    if (c == '>' && depth > 0) {
      --depth;
      continue;
    }
    if (depth == 0) out += c;
  }
  return out;
}

// First `cols` code points of UTF-8 text, as bytes.
size_t byteOffsetOfColumn(std::string_view s, size_t cols) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == cols) return i;
      ++seen;
    }
  }
  return s.size();
}

}  // namespace

std::string formatDuration(double ns) {
  double a = std::fabs(ns);
  if (a >= 999.995e6) return printf1("%.2f s", ns / 1e9);
  if (a >= 999.995e3) return printf1("%.2f ms", ns / 1e6);
  if (a >= 999.5) return printf1("%.2f us", ns / 1e3);
  return printf1("%.0f ns", ns);
}

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static constexpr const char* kUnits[] = {"KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && v >= 1023.95) {
    v /= 1024.0;
    ++unit;
  }
  return printf1("%.1f ", v) + kUnits[unit];
}

std::string formatRate(double bytes_per_s) {
  if (bytes_per_s >= 999.995e9) return printf1("%.2f TB/s", bytes_per_s / 1e12);
  if (bytes_per_s >= 999.995e6) return printf1("%.2f GB/s", bytes_per_s / 1e9);
  if (bytes_per_s >= 999.995e3) return printf1("%.2f MB/s", bytes_per_s / 1e6);
  if (bytes_per_s >= 999.995) return printf1("%.2f KB/s", bytes_per_s / 1e3);
  return printf1("%.2f B/s", bytes_per_s);
}

std::string formatPercent(double pct, int decimals) {
  return formatFixed(pct, decimals) + "%";
}

std::string formatCount(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string formatFixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  // "-0.0" reads as a sign error in a report.
  if (buf[0] == '-' && std::fabs(value) * std::pow(10.0, decimals) < 0.5) return buf + 1;
  return buf;
}

std::string formatDim3(const Dim3& d) {
  return dim3Text(d);
}

std::string formatEnergy(double joules) {
  if (joules >= 999.995e3) return printf1("%.2f MJ", joules / 1e6);
  if (joules >= 999.95) return printf1("%.2f kJ", joules / 1e3);
  if (joules >= 0.99995) return printf1("%.1f J", joules);
  return printf1("%.1f mJ", joules * 1e3);
}

std::string formatMiB(uint64_t bytes) {
  return printf1("%.0f", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

size_t displayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string padRight(std::string_view s, size_t width) {
  std::string out(s);
  size_t w = displayWidth(s);
  if (w < width) out.append(width - w, ' ');
  return out;
}

std::string padLeft(std::string_view s, size_t width) {
  size_t w = displayWidth(s);
  std::string out;
  if (w < width) out.append(width - w, ' ');
  out += s;
  return out;
}

std::string centerText(std::string_view s, size_t width) {
  size_t w = displayWidth(s);
  if (w >= width) return std::string(s);
  size_t pad = width - w;
  return std::string((pad + 1) / 2, ' ') + std::string(s);
}

std::string shortenKernelName(std::string_view name, size_t width) {
  // The readable form (core/demangle): no return type or parameters, no ABI tags, Numba's mangling
  // undone. Template arguments are kept whole here; collapseTemplates shortens them only when the
  // width demands it.
  ReadableNameOptions whole;
  whole.max_template_depth = 1000;
  whole.strip_argument_namespaces = false;
  whole.max_length = std::string::npos;
  std::string readable = readableKernelName(name, whole);
  std::string_view s = readable;
  std::string out(s);
  if (displayWidth(out) <= width) return out;
  out = collapseTemplates(out);
  size_t w = displayWidth(out);
  if (w <= width || width < 8) return out;
  // The tail holds the function's own name, the most telling part: keep two thirds of the room for
  // it.
  size_t room = width - 3;
  size_t head = room / 3, tail = room - head;
  return out.substr(0, byteOffsetOfColumn(out, head)) + "..." +
         out.substr(byteOffsetOfColumn(out, w - tail));
}

std::string keepEnd(std::string_view s, size_t width) {
  if (displayWidth(s) <= width) return std::string(s);
  if (width <= 3) return std::string(width, '.');
  std::string out = "...";
  out += s.substr(byteOffsetOfColumn(s, displayWidth(s) - (width - 3)));
  return out;
}

namespace {

// Where to cut a word too long for any line, within its first `room` columns: after the last '/',
// ',', ';', '=' or ':' in the second half of that room (a path breaks between its folders), else
// at the room. Returns a byte offset, at least one character.
size_t wordCut(std::string_view word, size_t room) {
  const size_t limit = byteOffsetOfColumn(word, room);
  for (size_t i = limit; i > byteOffsetOfColumn(word, room / 2); --i)
    if (std::string_view("/,;=:").find(word[i - 1]) != std::string_view::npos) return i;
  if (limit > 0) return limit;
  size_t one = 1;  // a single character, whatever its width
  while (one < word.size() && (static_cast<unsigned char>(word[one]) & 0xC0) == 0x80) ++one;
  return one;
}

}  // namespace

std::vector<std::string> wrapText(std::string_view text, size_t width, std::string_view first,
                                  std::string_view rest) {
  std::vector<std::string> lines;
  std::string line(first);
  size_t line_words = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (line_words > 0 && displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push_back(line);
      line = std::string(rest);
      line_words = 0;
    }
    // A word longer than a whole line (a path, a URL) is cut into lines of its own.
    while (line_words == 0 && displayWidth(line) < width &&
           displayWidth(line) + displayWidth(word) > width) {
      const size_t cut = wordCut(word, width - displayWidth(line));
      lines.push_back(line + std::string(word.substr(0, cut)));
      line = std::string(rest);
      word.remove_prefix(cut);
    }
    if (line_words > 0) line += ' ';
    line += word;
    ++line_words;
  }
  if (line_words > 0 || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace gpufl::report
