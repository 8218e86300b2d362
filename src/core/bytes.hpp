// Byte-string helpers for the hot paths (no allocation, no call for short inputs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gpufl::core {

// a[0..n) == b[0..n). Up to 64 bytes with overlapping 8-byte loads and no call: on the scope hot
// path (names) and the writer's (session ids, 36 bytes), a memcmp call costs as much as the rest of
// the lookup.
inline bool sameBytes(const char* a, const char* b, size_t n) noexcept {
  const auto word = [](const char* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  };
  if (n >= 8 && n <= 16) {
    return ((word(a) ^ word(b)) | (word(a + n - 8) ^ word(b + n - 8))) == 0;
  }
  if (n > 16 && n <= 32) {
    return ((word(a) ^ word(b)) | (word(a + 8) ^ word(b + 8)) |
            (word(a + n - 16) ^ word(b + n - 16)) | (word(a + n - 8) ^ word(b + n - 8))) == 0;
  }
  if (n > 32 && n <= 64) {
    uint64_t diff = word(a + n - 8) ^ word(b + n - 8);
    for (size_t i = 0; i + 8 < n; i += 8) diff |= word(a + i) ^ word(b + i);
    return diff == 0;
  }
  if (n > 64) return std::memcmp(a, b, n) == 0;
  if (n >= 4) {
    uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, a, 4);
    std::memcpy(&a1, a + n - 4, 4);
    std::memcpy(&b0, b, 4);
    std::memcpy(&b1, b + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  for (size_t i = 0; i < n; ++i) {  // 0 to 3 bytes; either pointer may be null when n is 0
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace gpufl::core
