#include "monitor/exposition.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace gpufl::monitor {

std::string formatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Shortest text that reads back as the same double ("0.03", not "0.029999999999999999");
  // integral values up to 2^53 without an exponent (byte counts, pids).
  char buf[64];
  std::to_chars_result r = std::fabs(v) < 9007199254740992.0 && v == std::floor(v)
                               ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                               : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

namespace {
std::string escape(std::string_view v, bool quote) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

std::string escapeLabelValue(std::string_view v) {
  return escape(v, true);
}
std::string escapeHelp(std::string_view v) {
  return escape(v, false);
}

void Exposition::family(std::string_view name, MetricType type, std::string_view help) {
  for (const Family& f : families_) {
    if (f.name == name) throw std::logic_error("metric family written twice: " + std::string(name));
  }
  families_.push_back({std::string(name), type, std::string(help), {}});
}

void Exposition::sample(const Labels& labels, double value) {
  if (families_.empty()) throw std::logic_error("metric sample before any family");
  Family& f = families_.back();
  f.lines += f.name;
  if (!labels.empty()) {
    f.lines += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i) f.lines += ',';
      f.lines += labels[i].first;
      f.lines += "=\"";
      f.lines += escapeLabelValue(labels[i].second);
      f.lines += '"';
    }
    f.lines += '}';
  }
  f.lines += ' ';
  f.lines += formatValue(value);
  f.lines += '\n';
}

std::string Exposition::text() const {
  std::string out;
  for (const Family& f : families_) {
    if (f.lines.empty()) continue;
    out += "# HELP " + f.name + " " + escapeHelp(f.help) + "\n";
    out += "# TYPE " + f.name + (f.type == MetricType::Counter ? " counter\n" : " gauge\n");
    out += f.lines;
  }
  return out;
}

}  // namespace gpufl::monitor
