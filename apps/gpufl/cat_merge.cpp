#include "cat_merge.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace gpufl::cli {
namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    if (end == std::string_view::npos) end = text.size();
    if (end > 0) lines.push_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

// The integer after "<key>": at the top level of a writer-printed line (the writer prints scalar
// fields as "name":value; string values cannot contain an unescaped quote, so the match is a
// field).
bool intField(std::string_view line, std::string_view key, int64_t* value) {
  std::string pattern = "\"";
  pattern += key;
  pattern += "\":";
  size_t at = line.find(pattern);
  if (at == std::string_view::npos) return false;
  const char* begin = line.data() + at + pattern.size();
  return std::from_chars(begin, line.data() + line.size(), *value).ec == std::errc{};
}

// The raw (still escaped) JSON string after "<key>":".
bool stringField(std::string_view line, std::string_view key, std::string_view* value) {
  std::string pattern = "\"";
  pattern += key;
  pattern += "\":\"";
  size_t at = line.find(pattern);
  if (at == std::string_view::npos) return false;
  size_t begin = at + pattern.size(), end = begin;
  while (end < line.size() && line[end] != '"') end += line[end] == '\\' ? 2 : 1;
  if (end >= line.size()) return false;
  *value = line.substr(begin, end - begin);
  return true;
}

bool isType(std::string_view line, std::string_view type) {
  return line.find("\"type\":\"" + std::string(type) + "\"") != std::string_view::npos;
}

bool isDefinition(std::string_view line) {
  return isType(line, "kernel_def") || isType(line, "scope_path") || isType(line, "stack");
}

}  // namespace

std::string mergeByTime(std::string_view ndjson) {
  struct Keyed {
    int64_t time;
    std::string_view line;
  };
  std::vector<Keyed> keyed;
  int64_t run_start = std::numeric_limits<int64_t>::min(), last = run_start;
  std::string_view first_start, first_end;
  for (std::string_view line : splitLines(ndjson)) {
    int64_t t = 0;
    if (isType(line, "session_start")) {
      if (intField(line, "start_ns", &t)) run_start = last = t;
      // Another channel's copy: the same line, or the same session without the device list
      // (only the device channel's session_start carries it).
      std::string_view sid, first_sid;
      if (first_start.empty()) {
        first_start = line;
      } else if (line == first_start ||
                 (stringField(line, "sid", &sid) && stringField(first_start, "sid", &first_sid) &&
                  sid == first_sid && line.find("\"devices\":[]") != std::string_view::npos)) {
        continue;
      }
    } else if (isType(line, "session_end")) {
      if (first_end.empty())
        first_end = line;
      else if (line == first_end)
        continue;
    }
    if (isDefinition(line)) {
      t = run_start;
    } else if (isType(line, "session_end")) {
      // Last: records stamped at shutdown (the gpufl_time note) can be later than its end_ns.
      t = std::numeric_limits<int64_t>::max();
    } else if (intField(line, "ts_ns", &t) || intField(line, "start_ns", &t) ||
               intField(line, "end_ns", &t)) {
      last = t;
    } else {
      t = last;
    }
    keyed.push_back({t, line});
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const Keyed& a, const Keyed& b) { return a.time < b.time; });
  std::string out;
  out.reserve(ndjson.size());
  for (const Keyed& k : keyed) out.append(k.line).push_back('\n');
  return out;
}

std::string nameKernelEvents(std::string_view ndjson) {
  std::map<int64_t, std::string_view> names;
  for (std::string_view line : splitLines(ndjson)) {
    int64_t k = 0;
    std::string_view name;
    if (isType(line, "kernel_def") && intField(line, "k", &k) &&
        (stringField(line, "demangled", &name) || stringField(line, "name", &name)))
      names.emplace(k, name);
  }
  std::string out;
  out.reserve(ndjson.size());
  for (std::string_view line : splitLines(ndjson)) {
    int64_t k = 0;
    size_t at = line.find(",\"k\":");
    auto it = names.end();
    if (isType(line, "kernel_event") && at != std::string_view::npos && intField(line, "k", &k) &&
        line.find("\"kernel\":") == std::string_view::npos)
      it = names.find(k);
    const size_t after =
        it == names.end() ? std::string_view::npos : line.find_first_of(",}", at + 5);
    if (after == std::string_view::npos) {
      out.append(line).push_back('\n');
      continue;
    }
    out.append(line.substr(0, after));
    out.append(",\"kernel\":\"").append(it->second).append("\"");
    out.append(line.substr(after)).push_back('\n');
  }
  return out;
}

}  // namespace gpufl::cli
