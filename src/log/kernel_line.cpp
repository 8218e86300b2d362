#include "log/kernel_line.hpp"

#include <cstring>
#include <limits>

namespace gpufl::log::detail {
namespace {

enum class Key { K, DtNs, Dcorr, DurNs, Stream, Scope, StartNs, Corr, EndNs, Stack, Graph, Instr };

template <size_t N>
bool is(const char* key, const char (&name)[N]) {
  return std::memcmp(key, name, N - 1) == 0;
}

// The kernel_event key `key` (`n` bytes, as written), or false for any other.
bool keyOf(const char* key, size_t n, Key& out) {
  switch (n) {
    case 1:
      if (key[0] != 'k') return false;
      out = Key::K;
      return true;
    case 4:
      if (!is(key, "corr")) return false;
      out = Key::Corr;
      return true;
    case 5:
      if (is(key, "dt_ns"))
        out = Key::DtNs;
      else if (is(key, "dcorr"))
        out = Key::Dcorr;
      else if (is(key, "scope"))
        out = Key::Scope;
      else if (is(key, "stack"))
        out = Key::Stack;
      else if (is(key, "graph"))
        out = Key::Graph;
      else if (is(key, "instr"))
        out = Key::Instr;
      else
        return false;
      return true;
    case 6:
      if (is(key, "dur_ns"))
        out = Key::DurNs;
      else if (is(key, "stream"))
        out = Key::Stream;
      else if (is(key, "end_ns"))
        out = Key::EndNs;
      else
        return false;
      return true;
    case 8:
      if (!is(key, "start_ns")) return false;
      out = Key::StartNs;
      return true;
    default:
      return false;
  }
}

bool isDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// Characters a sid is made of (the writer's are hex digits): nothing that JSON escapes or that
// could end the string.
bool isSidChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '_' || c == '.' || c == ':';
}

// A JSON integer -?(0|[1-9][0-9]*) of at most 18 digits (so it fits an int64 whatever its sign);
// moves `p` past it. "-0" is refused: its meaning as an unsigned value is the full parser's call.
bool scanInteger(const char*& p, const char* end, bool& negative, uint64_t& magnitude) {
  negative = p < end && *p == '-';
  if (negative) ++p;
  const char* const digits = p;
  uint64_t v = 0;
  while (p < end && isDigit(*p)) {
    v = v * 10 + static_cast<uint64_t>(*p - '0');  // unsigned: wraps harmlessly past 18 digits
    ++p;
  }
  const size_t n = static_cast<size_t>(p - digits);
  if (n == 0 || n > 18 || (n > 1 && *digits == '0') || (negative && v == 0)) return false;
  magnitude = v;
  return true;
}

bool scanUint32(const char*& p, const char* end, uint32_t& out) {
  bool negative;
  uint64_t v;
  if (!scanInteger(p, end, negative, v) || negative || v > std::numeric_limits<uint32_t>::max())
    return false;
  out = static_cast<uint32_t>(v);
  return true;
}

bool scanInt64(const char*& p, const char* end, int64_t& out) {
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
    // ,"key":
    if (*p != ',' || end - p < 4 || p[1] != '"') return false;
    p += 2;
    const char* const key = p;
    while (p < end && ((*p >= 'a' && *p <= 'z') || *p == '_')) ++p;
    Key which;
    if (end - p < 2 || p[0] != '"' || p[1] != ':' ||
        !keyOf(key, static_cast<size_t>(p - key), which))
      return false;
    p += 2;
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
