// The layout of a kernel_block's payload, shared by its writer (kernel_block.cpp) and its reader
// (kernel_block_read.cpp). docs/log-format.md describes the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpufl::log::block {

// The payload before compression (all integers little-endian):
//   u8 version (1), u32 n, i64 start_ns of the first event, u64 its correlation id,
//   then kColumns columns in the order of Column, each a u8 width w (0..8) and w planes of n bytes:
//   plane i holds byte i of every value (zigzag-coded), so the bytes that barely change (the high
//   ones) sit together and compress to almost nothing.
inline constexpr uint8_t kVersion = 1;
enum Column : int {
  kStartTicks,  // start minus the previous start, in 32 ns ticks (rounded to nearest) ...
  kStartRest,   // ... and what remains, in [-16, 15] ns
  kDurTicks,    // end minus start, the same way
  kDurRest,
  kDcorr,  // correlation id minus the previous one
  kDefId,
  kStream,
  kScope,
  kStack,
  kGraph,
  kInstr,
  kColumns
};
inline constexpr size_t kHeaderBytes = 1 + 4 + 8 + 8;
inline constexpr uint64_t kTick = 32;

inline uint64_t zigzag(uint64_t v) {
  return (v << 1) ^ (0 - (v >> 63));
}
inline uint64_t unzigzag(uint64_t u) {
  return (u >> 1) ^ (0 - (u & 1));
}

// A difference in ticks and remainder: d = ticks * 32 + rest, rest in [-16, 15], modulo 2^64 (so
// any pair of int64 values round-trips).
inline void splitTicks(uint64_t d, uint64_t& ticks, uint64_t& rest) {
  ticks = static_cast<uint64_t>(static_cast<int64_t>(d + kTick / 2) >> 5);
  rest = d - ticks * kTick;
}

inline void putLe(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline uint64_t getLe(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Standard base64 (RFC 4648, with padding): a JSON string needs no escaping then.
inline constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace gpufl::log::block
