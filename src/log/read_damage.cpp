#include "log/read_damage.hpp"

#include <cstdio>

namespace gpufl::log {
namespace {

std::string counted(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string segmentNumber(uint64_t n) {
  char text[24];
  std::snprintf(text, sizeof text, "%06llu", static_cast<unsigned long long>(n));
  return text;
}

}  // namespace

std::string describeDamage(const ReadResult& r) {
  std::string text;
  const auto add = [&](const std::string& phrase) { text += (text.empty() ? "" : "; ") + phrase; };
  if (r.damaged_lines > 0) add(counted(r.damaged_lines, "unreadable line", "unreadable lines"));
  if (r.lost_kernels > 0)
    add(counted(r.lost_kernels, "kernel event", "kernel events") + " lost with them");
  if (r.unreadable_files > 0)
    add(counted(r.unreadable_files, "file", "files") + " not read to the end");
  for (const MissingSegments& m : r.missing_segments) {
    add(m.channel +
        (m.first == m.last ? " segment " + segmentNumber(m.first)
                           : " segments " + segmentNumber(m.first) + "-" + segmentNumber(m.last)) +
        " missing");
  }
  if (r.have_written && !(r.written == r.read)) {
    const auto compare = [&](const char* what, uint64_t written, uint64_t read) {
      if (written != read)
        add("session_end counts " + std::to_string(written) + " " + what + ", " +
            std::to_string(read) + " were read");
    };
    compare("kernel events", r.written.kernels, r.read.kernels);
    compare("copies", r.written.memcpys, r.read.memcpys);
    compare("scopes", r.written.scopes, r.read.scopes);
  }
  return text;
}

}  // namespace gpufl::log
