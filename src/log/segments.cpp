#include "log/segments.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "log/reader.hpp"

namespace gpufl::log {
namespace {

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::optional<SegmentName> parseSegmentName(std::string_view name, std::string_view base,
                                            std::string_view channel) {
  if (!consume(name, base) || !consume(name, ".") || !consume(name, channel) || !consume(name, "."))
    return std::nullopt;
  if (name == "log") return SegmentName{};
  size_t digits = 0;
  while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9') ++digits;
  // 20 digits would overflow; no writer gets anywhere near that many segments.
  if (digits < 6 || digits > 19) return std::nullopt;
  uint64_t number = 0;
  for (size_t i = 0; i < digits; ++i) number = number * 10 + static_cast<uint64_t>(name[i] - '0');
  name.remove_prefix(digits);
  if (number == 0) return std::nullopt;
  if (name == ".log") return SegmentName{number, false};
  if (name == ".log.zst") return SegmentName{number, true};
  return std::nullopt;
}

namespace {

// Splits "…<base>.<channel>[.<N>].log[.zst]" into channel and N (0 when absent); false for other
// names.
bool splitChannelPath(std::string_view path, std::string_view* channel, uint64_t* number) {
  const auto strip = [&](std::string_view suffix) {
    if (path.size() < suffix.size() || path.substr(path.size() - suffix.size()) != suffix)
      return false;
    path.remove_suffix(suffix.size());
    return true;
  };
  strip(".zst");
  if (!strip(".log")) return false;
  size_t digits = 0;
  while (digits < path.size() && path[path.size() - 1 - digits] >= '0' &&
         path[path.size() - 1 - digits] <= '9')
    ++digits;
  *number = 0;
  if (digits > 0 && digits <= 19 && digits < path.size() && path[path.size() - 1 - digits] == '.') {
    for (const char c : path.substr(path.size() - digits))
      *number = *number * 10 + static_cast<uint64_t>(c - '0');
    path.remove_suffix(digits + 1);
  }
  const size_t dot = path.find_last_of("./");
  if (dot == std::string_view::npos || path[dot] != '.') return false;
  *channel = path.substr(dot + 1);
  return true;
}

}  // namespace

std::string_view channelOfPath(std::string_view path) {
  std::string_view channel;
  uint64_t number = 0;
  return splitChannelPath(path, &channel, &number) ? channel : std::string_view{};
}

uint64_t segmentNumberOfPath(std::string_view path) {
  std::string_view channel;
  uint64_t number = 0;
  return splitChannelPath(path, &channel, &number) ? number : 0;
}

std::vector<SegmentGap> segmentGaps(const std::vector<std::string>& inputs) {
  std::map<std::string_view, uint64_t> last;  // channel -> highest segment number so far
  std::vector<SegmentGap> gaps;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string_view channel;
    uint64_t number = 0;
    if (!splitChannelPath(inputs[i], &channel, &number) || number == 0) continue;
    uint64_t& prev = last[channel];
    if (number > prev + 1)
      gaps.push_back(SegmentGap{std::string(channel), prev + 1, number - 1, i});
    prev = std::max(prev, number);
  }
  return gaps;
}

bool isCompressedPath(std::string_view path) {
  return path.size() >= 4 && path.substr(path.size() - 4) == ".zst";
}

// Segment N may exist both plain and compressed: the writer deletes the plain file only once the
// .zst is complete, so seeing both means a compression is in progress or was interrupted. The plain
// file is then the complete one and is taken; the .zst is ignored without a warning because this is
// the normal state of a live session while its compressor runs.
std::vector<std::string> channelFiles(const std::string& prefix, Channel channel) {
  namespace fs = std::filesystem;
  const fs::path prefix_path(prefix);
  const std::string base = prefix_path.filename().string();
  const fs::path dir = prefix_path.has_parent_path() ? prefix_path.parent_path() : fs::path(".");
  const std::string_view channel_name = channelName(channel);

  std::map<uint64_t, std::string> segments;  // N -> file name (plain wins over .zst)
  bool have_active = false;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto seg = parseSegmentName(name, base, channel_name);
    // Whatever the entry is (a directory, a FIFO), it is taken: opening it says what is wrong with
    // it.
    if (!seg) continue;
    if (seg->number == 0) {
      have_active = true;
      continue;
    }
    auto [pos, inserted] = segments.emplace(seg->number, name);
    if (!inserted && !seg->compressed) pos->second = name;
  }

  // Paths keep the directory part of the prefix as the user wrote it ("run" stays
  // "run.device.log").
  const bool ends_with_base = prefix.size() >= base.size() &&
                              prefix.compare(prefix.size() - base.size(), base.size(), base) == 0;
  const std::string dir_part =
      ends_with_base ? prefix.substr(0, prefix.size() - base.size()) : (dir / "").string();
  std::vector<std::string> files;
  files.reserve(segments.size() + 1);
  for (const auto& [number, name] : segments) files.push_back(dir_part + name);
  if (have_active) files.push_back(prefix + "." + std::string(channel_name) + ".log");
  return files;
}

}  // namespace gpufl::log
