// Integer arithmetic on values that come from logs (timestamps, durations, sums of them): a log may
// hold any int64, and signed overflow is undefined behaviour (a release build then prints "-1 ns").
// Every sum or difference of such values goes through one of these.
//   sat*      clamps to [INT64_MIN, INT64_MAX]: for totals and spans shown to people (too big reads
//   as huge,
//             never as negative).
//   spanNs    end - start clamped to [0, INT64_MAX]: a duration; end before start is 0.
//   wrap*     two's-complement wrap-around: for delta encodings, which must round-trip every value
//   exactly
//             (the reader undoes them with wrapAdd).
#pragma once

#include <cstdint>
#include <limits>

namespace gpufl {

constexpr int64_t satAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

constexpr int64_t satSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// Unsigned counters (bytes) wrap without undefined behaviour, but a wrapped total is a wrong total.
constexpr uint64_t satAdd(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

constexpr int64_t spanNs(int64_t start, int64_t end) {
  return end <= start ? 0 : satSub(end, start);
}

constexpr int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

constexpr int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

}  // namespace gpufl
