#include "core/terminal_text.hpp"

#include <cstdint>

namespace gpufl {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendByte(std::string& out, unsigned char c) {
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
  }
}

// The code point of the well-formed UTF-8 sequence at p[0..n) (p[0] >= 0x80) and its length, or
// length 0 when it is not one (overlong, surrogate, above U+10FFFF, cut short).
size_t decodeUtf8(const unsigned char* p, size_t n, char32_t* cp) {
  const unsigned char c = p[0];
  size_t len = 0;
  char32_t v = 0, min = 0;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, v = c & 0x07, min = 0x10000;
  else
    return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

bool isFormatControl(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string terminalSafe(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  std::string out;
  out.reserve(n);
  size_t i = 0;
  while (i < n) {
    // Printable ASCII is copied in runs: nearly every name is one run.
    size_t run = i;
    while (run < n && p[run] >= 0x20 && p[run] < 0x7F) ++run;
    out.append(text.data() + i, run - i);
    if ((i = run) == n) break;
    const unsigned char c = p[i];
    if (c < 0x80) {  // C0 or DEL
      appendByte(out, c);
      ++i;
      continue;
    }
    char32_t cp = 0;
    const size_t len = decodeUtf8(p + i, n - i, &cp);
    if (len == 0) {
      appendByte(out, c);
      ++i;
    } else if (isFormatControl(cp)) {
      out += {'\\',         'u', kHex[(cp >> 12) & 15], kHex[(cp >> 8) & 15], kHex[(cp >> 4) & 15],
              kHex[cp & 15]};
      i += len;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
  }
  return out;
}

}  // namespace gpufl
