// Finds the files of one channel of a log prefix, in the order a reader must take them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpufl::log {

// What a file name under a prefix says about itself: `<base>.<channel>.<N>.log[.zst]` or `<base>.<channel>.log`.
struct SegmentName {
  uint64_t number = 0;  // 0 = the active file
  bool compressed = false;
};

// Parses `name` (a file name without directory) as a file of channel `channel` under base name `base`.
// N must be at least 6 digits (the writer pads to 6 and only grows past 999999).
std::optional<SegmentName> parseSegmentName(std::string_view name, std::string_view base,
                                            std::string_view channel);

// The channel named by a channel file's path: "dir/run.device.000003.log.zst" -> "device"; empty when the name
// does not end like a channel file.
std::string_view channelOfPath(std::string_view path);

// True when `path` names a zstd-compressed segment (by its `.zst` suffix).
bool isCompressedPath(std::string_view path);

}  // namespace gpufl::log
