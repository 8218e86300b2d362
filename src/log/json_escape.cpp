#include "log/json_escape.hpp"

#include <cstdint>

namespace gpufl::log {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
constexpr char kHex[] = "0123456789abcdef";

// Bytes that cannot be copied as they are: control characters (DEL too), '"', '\\', and non-ASCII
// (must be validated, and C1 controls escaped).
constexpr bool needsCare(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
}

// Length of the valid UTF-8 sequence starting at p[0] (a byte >= 0x80), or 0 if invalid; when
// invalid, *bad is the length of the maximal subpart (the longest prefix that could have started a
// valid sequence), >= 1.
size_t utf8Sequence(const unsigned char* p, size_t n, size_t* bad) {
  const unsigned char c = p[0];
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    *bad = 1;
    return 0;
  }
  size_t i = 1;
  for (; i < len && i < n; ++i) {
    const unsigned char b = p[i];
    const bool ok = i == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) break;
  }
  if (i == len) return len;
  *bad = i;
  return 0;
}

void appendEscapedControl(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out.append("\\\"", 2);
      return;
    case '\\':
      out.append("\\\\", 2);
      return;
    case '\n':
      out.append("\\n", 2);
      return;
    case '\t':
      out.append("\\t", 2);
      return;
    case '\r':
      out.append("\\r", 2);
      return;
    case '\b':
      out.append("\\b", 2);
      return;
    case '\f':
      out.append("\\f", 2);
      return;
    default: {
      const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out.append(u, 6);
    }
  }
}

// A small recursive-descent checker of RFC 8259 JSON text, enough to vet option values.
class JsonChecker {
 public:
  explicit JsonChecker(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}

  bool document() {
    ws();
    if (!value(0)) return false;
    ws();
    return p_ == end_;
  }

 private:
  static constexpr int kMaxDepth = 64;

  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool eat(char c) {
    if (p_ < end_ && *p_ == c) return ++p_, true;
    return false;
  }
  bool word(std::string_view w) {
    if (static_cast<size_t>(end_ - p_) < w.size() || std::string_view(p_, w.size()) != w)
      return false;
    p_ += w.size();
    return true;
  }
  bool digits() {
    const char* s = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    return p_ > s;
  }
  bool number() {
    eat('-');
    if (!eat('0') && !digits()) return false;  // no leading zeros
    if (eat('.') && !digits()) return false;
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (!eat('+')) eat('-');
      if (!digits()) return false;
    }
    return true;
  }
  bool string() {
    if (!eat('"')) return false;
    while (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') return ++p_, true;
      if (c < 0x20) return false;
      if (c == '\\') {
        if (++p_ == end_) return false;
        const char e = *p_++;
        if (e == 'u') {
          for (int i = 0; i < 4; ++i, ++p_) {
            if (p_ == end_ || !isxdigit(static_cast<unsigned char>(*p_))) return false;
          }
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return false;
        }
      } else if (c >= 0x80) {
        size_t bad = 0;
        const size_t n = utf8Sequence(reinterpret_cast<const unsigned char*>(p_), end_ - p_, &bad);
        if (n == 0) return false;
        p_ += n;
      } else {
        ++p_;
      }
    }
    return false;
  }
  static bool isxdigit(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
  template <typename Item>
  bool sequence(char close, Item item) {
    ws();
    if (eat(close)) return true;
    do {
      ws();
      if (!item()) return false;
      ws();
    } while (eat(','));
    return eat(close);
  }
  bool value(int depth) {
    if (p_ == end_ || depth > kMaxDepth) return false;
    switch (*p_) {
      case '{':
        ++p_;
        return sequence('}', [&] {
          if (!string()) return false;
          ws();
          if (!eat(':')) return false;
          ws();
          return value(depth + 1);
        });
      case '[':
        ++p_;
        return sequence(']', [&] { return value(depth + 1); });
      case '"':
        return string();
      case 't':
        return word("true");
      case 'f':
        return word("false");
      case 'n':
        return word("null");
      default:
        return number();
    }
  }

  const char* p_;
  const char* end_;
};

}  // namespace

void appendJsonString(std::string& out, std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  out.push_back('"');
  size_t i = 0;
  while (i < n) {
    // Copy the longest run of bytes that need nothing; names are nearly always entirely such a run.
    size_t run = i;
    while (run < n && !needsCare(p[run])) ++run;
    if (run > i) out.append(text.data() + i, run - i);
    i = run;
    if (i == n) break;
    const unsigned char c = p[i];
    if (c < 0x80) {
      appendEscapedControl(out, c);
      ++i;
      continue;
    }
    size_t bad = 0;
    const size_t len = utf8Sequence(p + i, n - i, &bad);
    if (len == 2 && c == 0xC2 && p[i + 1] < 0xA0) {
      // A C1 control (U+0080-U+009F): valid JSON raw, but some terminals act on it (U+009B is CSI)
      // when the output is printed, as `gpufl cat` and `gpufl report --json` do.
      appendEscapedControl(out, p[i + 1]);
      i += 2;
    } else if (len) {
      out.append(text.data() + i, len);
      i += len;
    } else {
      out.append(kReplacement, 3);
      i += bad;
    }
  }
  out.push_back('"');
}

bool isJsonValue(std::string_view text) {
  return JsonChecker(text).document();
}

}  // namespace gpufl::log
