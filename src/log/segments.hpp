// Finds the files of one channel of a log prefix, in the order a reader must take them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpufl::log {

// What a file name under a prefix says about itself: `<base>.<channel>.<N>.log[.zst]` or
// `<base>.<channel>.log`.
struct SegmentName {
  uint64_t number = 0;  // 0 = the active file
  bool compressed = false;
};

// Parses `name` (a file name without directory) as a file of channel `channel` under base name
// `base`. N must be at least 6 digits (the writer pads to 6 and only grows past 999999).
std::optional<SegmentName> parseSegmentName(std::string_view name, std::string_view base,
                                            std::string_view channel);

// The channel named by a channel file's path: "dir/run.device.000003.log.zst" -> "device"; empty
// when the name does not end like a channel file.
std::string_view channelOfPath(std::string_view path);

// The segment number a channel file's path gives: N for "run.device.00000N.log[.zst]", 0 for the
// active file or a name that is not a channel file's.
uint64_t segmentNumberOfPath(std::string_view path);

// A hole in the numbering of one channel's segments among `inputs` (channel files in read order, as
// channelFiles gives them): segments 1.. are expected without gaps up to the highest present.
struct SegmentGap {
  std::string channel;
  uint64_t first = 0, last = 0;  // the absent numbers
  size_t next_input = 0;         // index in `inputs` of the first file after the hole
};
std::vector<SegmentGap> segmentGaps(const std::vector<std::string>& inputs);

// How many times channelFiles listed a directory in this process. It lists each directory once
// while the directory stays unchanged, however many prefixes and channels are asked for
// (segments.cpp: ListingCache).
uint64_t directoryListings();

// True when `path` names a zstd-compressed segment (by its `.zst` suffix).
bool isCompressedPath(std::string_view path);

}  // namespace gpufl::log
