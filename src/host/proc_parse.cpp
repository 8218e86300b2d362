#include "host/proc_parse.hpp"

#include <charconv>

namespace gpufl::host {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t';
}

// Reads the next whitespace-separated unsigned integer from `text` at `pos`; false at end of line
// or on junk.
bool nextNumber(std::string_view text, size_t& pos, uint64_t& value) {
  while (pos < text.size() && isSpace(text[pos])) ++pos;
  if (pos >= text.size() || text[pos] == '\n') return false;
  auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), value);
  if (ec != std::errc() || (end != text.data() + text.size() && !isSpace(*end) && *end != '\n'))
    return false;
  pos = static_cast<size_t>(end - text.data());
  return true;
}

// The value of a "Key:   <n> kB" line of a /proc status-style file, in bytes (numbers without a
// unit are taken as they are).
std::optional<uint64_t> keyedKilobytes(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':')
      continue;
    size_t p = key.size() + 1;
    uint64_t value = 0;
    if (!nextNumber(line, p, value)) return std::nullopt;
    while (p < line.size() && isSpace(line[p])) ++p;
    std::string_view unit = line.substr(p);
    if (unit.empty()) return value;
    if (unit == "kB") return value * 1024;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<CpuTimes> parseProcStat(std::string_view text) {
  if (text.substr(0, 4) != "cpu " && text.substr(0, 4) != "cpu\t") return std::nullopt;
  size_t pos = 3;
  uint64_t fields[8] = {};
  // Kernels since 2.6.11 have at least 8 fields; fewer means the file is not what we expect.
  for (uint64_t& f : fields) {
    if (!nextNumber(text, pos, f)) return std::nullopt;
  }
  CpuTimes t;
  for (uint64_t f : fields) t.total += f;
  t.idle = fields[3] + fields[4];
  return t;
}

std::optional<double> cpuBusyPercent(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.idle < before.idle) return std::nullopt;
  const double total = static_cast<double>(after.total - before.total);
  const double idle = static_cast<double>(after.idle - before.idle);
  if (idle > total) return std::nullopt;
  return (total - idle) / total * 100.0;
}

std::optional<MemInfo> parseMeminfo(std::string_view text) {
  auto total = keyedKilobytes(text, "MemTotal");
  if (!total || *total == 0) return std::nullopt;
  MemInfo m;
  m.total_bytes = *total;
  if (auto avail = keyedKilobytes(text, "MemAvailable")) {
    m.available_bytes = *avail;
  } else {
    auto free = keyedKilobytes(text, "MemFree");
    if (!free) return std::nullopt;
    m.available_bytes = *free + keyedKilobytes(text, "Buffers").value_or(0) +
                        keyedKilobytes(text, "Cached").value_or(0);
  }
  return m;
}

std::optional<uint64_t> parseProcessCpuTicks(std::string_view text) {
  size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(close + 1);
  // Fields after the command: state(3) ppid(4) ... utime(14) stime(15): utime is the 12th token
  // after ')'.
  size_t pos = 0;
  int index = 0;
  uint64_t utime = 0, stime = 0;
  while (pos < rest.size() && index < 13) {
    while (pos < rest.size() && isSpace(rest[pos])) ++pos;
    if (pos >= rest.size() || rest[pos] == '\n') return std::nullopt;
    if (index == 11 || index == 12) {
      uint64_t& out = index == 11 ? utime : stime;
      if (!nextNumber(rest, pos, out)) return std::nullopt;
    } else {
      while (pos < rest.size() && !isSpace(rest[pos]) && rest[pos] != '\n') ++pos;
    }
    ++index;
  }
  if (index < 13) return std::nullopt;
  return utime + stime;
}

std::optional<uint64_t> parseVmRssBytes(std::string_view text) {
  return keyedKilobytes(text, "VmRSS");
}

}  // namespace gpufl::host
