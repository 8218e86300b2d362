#include "report/json/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "log/json_escape.hpp"

namespace gpufl::report {

void appendJsonEscaped(std::string& out, std::string_view s) {
  // The log writer's escaping: names come from the profiled program and may be broken UTF-8.
  log::appendJsonString(out, s);
}

void JsonWriter::beforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  Level& level = stack_.back();
  if (level.count++ > 0) out_ += ',';
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

JsonWriter& JsonWriter::key(std::string_view name) {
  beforeValue();
  appendJsonEscaped(out_, name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

void JsonWriter::open(char c) {
  beforeValue();
  out_ += c;
  stack_.push_back({c == '{', 0});
}

void JsonWriter::close(char c) {
  bool had_items = !stack_.empty() && stack_.back().count > 0;
  if (!stack_.empty()) stack_.pop_back();
  if (had_items) {
    out_ += '\n';
    out_.append(2 * stack_.size(), ' ');
  }
  out_ += c;
}

void JsonWriter::beginObject() {
  open('{');
}
void JsonWriter::endObject() {
  close('}');
}
void JsonWriter::beginArray() {
  open('[');
}
void JsonWriter::endArray() {
  close(']');
}

void JsonWriter::value(std::string_view s) {
  beforeValue();
  appendJsonEscaped(out_, s);
}

void JsonWriter::value(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
}

void JsonWriter::value(int64_t v) {
  beforeValue();
  out_ += std::to_string(v);
}

void JsonWriter::value(uint64_t v) {
  beforeValue();
  out_ += std::to_string(v);
}

void JsonWriter::value(double v, int decimals) {
  beforeValue();
  if (!std::isfinite(v)) {
    out_ += "null";
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  out_ += s;
}

void JsonWriter::null() {
  beforeValue();
  out_ += "null";
}

std::string JsonWriter::take() {
  out_ += '\n';
  std::string s = std::move(out_);
  out_.clear();
  stack_.clear();
  after_key_ = false;
  return s;
}

}  // namespace gpufl::report
