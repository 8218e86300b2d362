#include "log/kernel_line.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <limits>

namespace gpufl::log::detail {
namespace {

enum class Key { K, DtNs, Dcorr, DurNs, Stream, Scope, StartNs, Corr, EndNs, Stack, Graph, Instr };

// True when `p` starts with `pattern` (a key, its closing quote and the colon); moves `p` past it.
// The size is a constant, so the comparison compiles to a load or two.
template <size_t N>
bool take(const char*& p, const char* end, const char (&pattern)[N]) {
  constexpr size_t n = N - 1;
  if (static_cast<size_t>(end - p) < n || std::memcmp(p, pattern, n) != 0) return false;
  p += n;
  return true;
}

// Reads `key":` at `p` (just after the key's opening quote) for a kernel_event key; false for any
// other text. One branch on the first byte, then one fixed-size comparison per candidate.
bool takeKey(const char*& p, const char* end, Key& out) {
  if (p == end) return false;
  const auto is = [&](const auto& pattern, Key key) {
    if (!take(p, end, pattern)) return false;
    out = key;
    return true;
  };
  switch (*p) {
    case 'k':
      return is("k\":", Key::K);
    case 'd':
      // In the order the writer writes them: dur_ns first, then dcorr before dt_ns.
      return is("dur_ns\":", Key::DurNs) || is("dcorr\":", Key::Dcorr) || is("dt_ns\":", Key::DtNs);
    case 's':
      return is("stream\":", Key::Stream) || is("scope\":", Key::Scope) ||
             is("start_ns\":", Key::StartNs) || is("stack\":", Key::Stack);
    case 'c':
      return is("corr\":", Key::Corr);
    case 'e':
      return is("end_ns\":", Key::EndNs);
    case 'g':
      return is("graph\":", Key::Graph);
    case 'i':
      return is("instr\":", Key::Instr);
    default:
      return false;
  }
}

bool isDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// Characters a sid is made of (the writer's are hex digits): nothing that JSON escapes or that
// could end the string.
constexpr auto kSidChar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '_' || c == '.' || c == ':';
  return t;
}();
bool isSidChar(char c) {
  return kSidChar[static_cast<unsigned char>(c)];
}

// The value of the `n` (1-7) digits in the low bytes of `x` (first digit lowest, each byte already
// 0-9), combined in pairs, then fours: no loop and no data-dependent branch.
uint64_t swarDigits(uint64_t x, int n) {
  x <<= 8 * (8 - n);  // the digits at the top, zero digits in front of them
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
  return (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
}

// A JSON integer -?(0|[1-9][0-9]*) of at most 18 digits (so it fits an int64 whatever its sign);
// moves `p` past it. "-0" is refused: its meaning as an unsigned value is the full parser's call.
// Most numbers of a kernel line are short: when eight bytes can be read, a number of fewer than
// eight digits is found and converted with a few word operations.
[[gnu::always_inline]] inline bool scanInteger(const char*& p, const char* end, bool& negative,
                                               uint64_t& magnitude) {
  negative = p < end && *p == '-';
  if (negative) ++p;
  const char* const digits = p;
  uint64_t v = 0;
  size_t n = 0;
  uint64_t non_digit = 0;
  uint64_t x = 0;
  if constexpr (std::endian::native == std::endian::little) {
    if (end - p >= 8) {
      std::memcpy(&x, p, 8);
      x ^= 0x3030303030303030ull;  // digit bytes become 0-9, every other byte 10 or more
      // The top bit of each byte that is not 0-9 (no carry between bytes: at most 0x7F + 0x76).
      non_digit =
          (((x & 0x7F7F7F7F7F7F7F7Full) + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
    }
  }
  if (non_digit != 0) {
    n = static_cast<size_t>(std::countr_zero(non_digit) / 8);
    if (n == 0) return false;
    v = swarDigits(x, static_cast<int>(n));
    p += n;
  } else {
    while (p < end && isDigit(*p)) {
      v = v * 10 + static_cast<uint64_t>(*p - '0');  // unsigned: wraps harmlessly past 18 digits
      ++p;
    }
    n = static_cast<size_t>(p - digits);
  }
  if (n == 0 || n > 18 || (n > 1 && *digits == '0') || (negative && v == 0)) return false;
  magnitude = v;
  return true;
}

[[gnu::always_inline]] inline bool scanUint32(const char*& p, const char* end, uint32_t& out) {
  bool negative;
  uint64_t v;
  if (!scanInteger(p, end, negative, v) || negative || v > std::numeric_limits<uint32_t>::max())
    return false;
  out = static_cast<uint32_t>(v);
  return true;
}

[[gnu::always_inline]] inline bool scanInt64(const char*& p, const char* end, int64_t& out) {
  bool negative;
  uint64_t v;
  if (!scanInteger(p, end, negative, v)) return false;
  out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);  // |v| < 10^18: no overflow
  return true;
}

bool scanUint64(const char*& p, const char* end, uint64_t& out) {
  bool negative;
  return scanInteger(p, end, negative, out) && !negative;
}

bool scanBool(const char*& p, const char* end, bool& out) {
  const size_t left = static_cast<size_t>(end - p);
  if (left >= 4 && std::memcmp(p, "true", 4) == 0) {
    p += 4;
    out = true;
    return true;
  }
  if (left >= 5 && std::memcmp(p, "false", 5) == 0) {
    p += 5;
    out = false;
    return true;
  }
  return false;
}

}  // namespace

bool scanWriterKernelLine(std::string_view text, std::string_view& sid, KernelFields& f,
                          KernelEvent& ev) {
  constexpr std::string_view kHead = R"({"type":"kernel_event","sid":")";
  if (text.size() <= kHead.size() || std::memcmp(text.data(), kHead.data(), kHead.size()) != 0)
    return false;
  const char* p = text.data() + kHead.size();
  const char* const end = text.data() + text.size();
  const char* const sid_begin = p;
  while (p < end && isSidChar(*p)) ++p;
  if (p == end || *p != '"') return false;
  sid = std::string_view(sid_begin, static_cast<size_t>(p - sid_begin));
  ++p;
  uint32_t seen = 0;  // bit per Key: a repeated key makes the line ambiguous (the full parser says)
  for (;;) {
    if (p == end) return false;
    if (*p == '}') return p + 1 == end;
    Key which;
    if (!take(p, end, ",\"") || !takeKey(p, end, which)) return false;
    const uint32_t bit = 1u << static_cast<unsigned>(which);
    if (seen & bit) return false;
    seen |= bit;
    bool ok = false;
    switch (which) {
      case Key::K:
        ok = f.k = scanUint32(p, end, ev.def_id);
        break;
      case Key::DtNs:
        ok = f.have_dt = scanInt64(p, end, f.dt);
        break;
      case Key::Dcorr:
        ok = f.have_dcorr = scanInt64(p, end, f.dcorr);
        break;
      case Key::DurNs:
        ok = f.have_dur = scanInt64(p, end, f.dur);
        break;
      case Key::Stream:
        ok = scanUint32(p, end, ev.stream);
        break;
      case Key::Scope:
        ok = scanUint32(p, end, ev.scope_path);
        break;
      case Key::StartNs:
        ok = f.have_start = scanInt64(p, end, f.start);
        break;
      case Key::Corr:
        ok = f.have_corr = scanUint64(p, end, f.corr);
        break;
      case Key::EndNs:
        ok = f.have_end = scanInt64(p, end, f.end);
        break;
      case Key::Stack:
        ok = scanUint32(p, end, ev.stack_id);
        break;
      case Key::Graph:
        ok = scanUint32(p, end, ev.graph_id);
        break;
      case Key::Instr:
        ok = scanBool(p, end, ev.instrumented);
        break;
    }
    if (!ok) return false;
  }
}

}  // namespace gpufl::log::detail
