// Building blocks of an NDJSON line, for the formatters in ndjson_format.cpp: keys are assembled at
// compile time
// (`num<"dur_ns">(out, v)` appends `,"dur_ns":<v>` with one append for the key), numbers go through
// to_chars (shortest round-trip for doubles), strings through appendJsonString. Internal to
// src/log.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/events.hpp"
#include "core/record_schema.hpp"
#include "log/json_escape.hpp"

namespace gpufl::log::json {

// `,"name":` built at compile time, so writing a key is one append.
template <size_t N>
struct Key {
  char text[N + 3]{};  // L = N - 1 name bytes plus four punctuation bytes; no terminator
  constexpr Key(
      const char (&name)[N]) {  // NOLINT(google-explicit-constructor): used as "name" literals
    text[0] = ',';
    text[1] = '"';
    for (size_t i = 0; i + 1 < N; ++i) text[2 + i] = name[i];
    text[N + 1] = '"';
    text[N + 2] = ':';
  }
};

// True when key K is `name` (compile time: generated writers special-case a few keys).
template <size_t N, size_t M>
constexpr bool sameKey(const Key<N>& k, const char (&name)[M]) {
  if (N != M) return false;
  for (size_t i = 0; i + 1 < M; ++i)
    if (k.text[2 + i] != name[i]) return false;
  return true;
}

template <Key K>
inline void key(std::string& out) {
  out.append(K.text, sizeof(K.text));
}

template <typename T>
inline void appendNumber(std::string& out, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    v ? out.append("true", 4) : out.append("false", 5);
  } else if constexpr (std::is_floating_point_v<T>) {
    // JSON has no NaN or infinity; null keeps the line valid and tells the reader the value is
    // unusable.
    if (!std::isfinite(v)) {
      out.append("null", 4);
      return;
    }
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v));
    out.append(buf, r.ptr - buf);
  } else {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr - buf);
  }
}

template <Key K, typename T>
inline void num(std::string& out, T v) {
  key<K>(out);
  appendNumber(out, v);
}

template <Key K, typename T>
inline void opt(std::string& out, const std::optional<T>& v) {
  if (v) num<K>(out, *v);
}

template <Key K>
inline void str(std::string& out, std::string_view v) {
  key<K>(out);
  appendJsonString(out, v);
}

template <Key K>
inline void optStr(std::string& out, std::string_view v) {
  if (!v.empty()) str<K>(out, v);
}

template <Key K>
inline void dim(std::string& out, const Dim3& d) {
  key<K>(out);
  out.append("\"(", 2);
  appendNumber(out, d.x);
  out.push_back(',');
  appendNumber(out, d.y);
  out.push_back(',');
  appendNumber(out, d.z);
  out.append(")\"", 2);
}

template <Key K>
void strings(std::string& out, const std::vector<std::string>& v) {
  key<K>(out);
  out.push_back('[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out.push_back(',');
    appendJsonString(out, v[i]);
  }
  out.push_back(']');
}

// A JSON object from a map; `value` writes one mapped value.
template <Key K, typename Map, typename Value>
void object(std::string& out, const Map& m, Value value) {
  key<K>(out);
  out.push_back('{');
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out.push_back(',');
    first = false;
    appendJsonString(out, k);
    out.push_back(':');
    value(v);
  }
  out.push_back('}');
}

// Writes v in decimal at p and returns the end: the digit count first (from the bit width, one
// table compare), then two digits per division from the end. Same text as std::to_chars, without
// its counting loop; the kernel_event lines are mostly numbers.
inline char* writeDecimal(char* p, uint64_t v) {
  static constexpr uint64_t kPow10[20] = {1ull,
                                          10ull,
                                          100ull,
                                          1000ull,
                                          10000ull,
                                          100000ull,
                                          1000000ull,
                                          10000000ull,
                                          100000000ull,
                                          1000000000ull,
                                          10000000000ull,
                                          100000000000ull,
                                          1000000000000ull,
                                          10000000000000ull,
                                          100000000000000ull,
                                          1000000000000000ull,
                                          10000000000000000ull,
                                          100000000000000000ull,
                                          1000000000000000000ull,
                                          10000000000000000000ull};
  static constexpr auto kPairs = [] {
    std::array<char, 200> t{};
    for (int i = 0; i < 100; ++i) {
      t[2 * i] = char('0' + i / 10);
      t[2 * i + 1] = char('0' + i % 10);
    }
    return t;
  }();
  // floor(log10(2) * bits) is the digit count or one less; v | 1 keeps 0 at one digit.
  const int bits = 64 - std::countl_zero(v | 1);
  const int t = (bits * 1233) >> 12;
  const int n = t + ((v | 1) >= kPow10[t] ? 1 : 0);
  char* q = p + n;
  while (v >= 100) {
    const uint64_t r = v % 100;
    v /= 100;
    q -= 2;
    std::memcpy(q, &kPairs[2 * r], 2);
  }
  if (v >= 10) {
    std::memcpy(q - 2, &kPairs[2 * v], 2);
  } else {
    q[-1] = char('0' + v);
  }
  return p + n;
}

// Numeric fields collected in a stack buffer and appended to the line at once: for the records
// written millions of times (kernel_event), one capacity check and one copy per line instead of two
// per field. Holds at most kMaxFields fields, which bounds every write below the buffer's end: a
// key is at most kMaxKey bytes and a number at most 20 digits and a sign.
class NumberFields {
 public:
  static constexpr size_t kMaxFields = 12, kMaxKey = 16, kMaxHead = 128;

  NumberFields() = default;
  NumberFields(const NumberFields&) = delete;  // p_ points into buf_
  NumberFields& operator=(const NumberFields&) = delete;
  // The line starts with `head` (type and sid), copied here when it fits so that the whole line is
  // one append; a longer one is appended to `out` at once.
  NumberFields(std::string& out, std::string_view head) {
    if (head.size() <= kMaxHead) {
      std::memcpy(p_, head.data(), head.size());
      p_ += head.size();
    } else {
      out.append(head);
    }
  }

  template <Key K, typename T>
  void num(T v) {
    static_assert(sizeof(K.text) <= kMaxKey && std::is_integral_v<T>);
    assert(++count_ <= kMaxFields);
    std::memcpy(p_, K.text, sizeof(K.text));
    p_ += sizeof(K.text);
    if constexpr (std::is_same_v<T, bool>) {
      std::memcpy(p_, v ? "true" : "false", v ? 4 : 5);
      p_ += v ? 4 : 5;
    } else {
      uint64_t u = static_cast<uint64_t>(v);
      if constexpr (std::is_signed_v<T>) {
        if (v < 0) {
          *p_++ = '-';
          u = 0 - u;  // the magnitude, also of the most negative value
        }
      }
      p_ = writeDecimal(p_, u);
    }
  }
  // Appends the fields and the line's end ("}\n").
  void endLine(std::string& out) {
    p_[0] = '}';
    p_[1] = '\n';
    out.append(buf_, size_t(p_ + 2 - buf_));
  }

 private:
  char buf_[kMaxHead + kMaxFields * (kMaxKey + 21) + 2];
  char* p_ = buf_;
#ifndef NDEBUG
  size_t count_ = 0;
#endif
};

// Every line starts with type and sid. `type_head` is `{"type":"<type>","sid":`.
template <size_t N>
inline void head(std::string& out, const char (&type_head)[N], const std::string& sid) {
  out.append(type_head, N - 1);
  appendJsonString(out, sid);
}

// `{"type":"<type>","sid":` of the record type T (core/record_schema.hpp), built at compile time.
template <typename T>
inline constexpr auto kRecordHead = [] {
  constexpr std::string_view open = "{\"type\":\"", type = schema::Schema<T>::type,
                             close = "\",\"sid\":";
  std::array<char, open.size() + type.size() + close.size()> text{};
  size_t n = 0;
  for (const char c : open) text[n++] = c;
  for (const char c : type) text[n++] = c;
  for (const char c : close) text[n++] = c;
  return text;
}();

template <typename T>
inline void recordHead(std::string& out, const std::string& sid) {
  out.append(kRecordHead<T>.data(), kRecordHead<T>.size());
  appendJsonString(out, sid);
}

// A nested object whose fields are written flattened into the record (kernel_def's occupancy).
void flattened(std::string& out, const Occupancy& o);

// The fields of an object inside a list (incident.in_flight, ...), each with its leading comma.
void objectFields(std::string& out, const InFlightLaunch& o);
void objectFields(std::string& out, const BlockedThread& o);
void objectFields(std::string& out, const LastKernel& o);
void objectFields(std::string& out, const HealthExample& o);

// `,"key":[{...},...]`: a list of objects described by a field table.
template <Key K, typename N>
inline void objectList(std::string& out, const std::vector<N>& list) {
  key<K>(out);
  out.push_back('[');
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out.push_back(',');
    const size_t open = out.size();
    objectFields(out, list[i]);
    if (out.size() == open) {
      out.append("{}");
      continue;
    }
    out[open] = '{';  // the first field's comma
    out.push_back('}');
  }
  out.push_back(']');
}

// One field as its row of the field table says (presence P): OmitDefault leaves out an empty
// string, a zero, false; a std::optional is written when set; an optional nested object that has
// a flattened() writes its own fields in its place.
template <Key K, schema::Presence P, typename T>
inline void field(std::string& out, const T& v) {
  if constexpr (P == schema::Presence::OmitDefault) {
    if (v == T{}) return;
  }
  if constexpr (std::is_same_v<T, std::string>) {
    str<K>(out, v);
  } else if constexpr (std::is_arithmetic_v<T>) {
    num<K>(out, v);
  } else if constexpr (std::is_enum_v<T>) {
    str<K>(out, schema::wireName(v));
  } else if constexpr (std::is_same_v<T, Dim3>) {
    dim<K>(out, v);
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    strings<K>(out, v);
  } else if constexpr (requires { objectFields(out, v.front()); }) {
    objectList<K>(out, v);
  } else if constexpr (requires { flattened(out, *v); }) {
    if (v) flattened(out, *v);
  } else if constexpr (requires { v.has_value(); }) {
    opt<K>(out, v);
  } else {  // a map of numbers
    object<K>(out, v, [&](const auto& x) { appendNumber(out, x); });
  }
}

#define GFL_JSON_FIELD_(member, key_, presence, unit) \
  field<key_, schema::Presence::presence>(out, o.member);
inline void flattened(std::string& out, const Occupancy& o) {
  GFL_FIELDS_Occupancy(GFL_JSON_FIELD_)
}
inline void objectFields(std::string& out, const InFlightLaunch& o) {
  GFL_FIELDS_InFlightLaunch(GFL_JSON_FIELD_)
}
inline void objectFields(std::string& out, const BlockedThread& o) {
  GFL_FIELDS_BlockedThread(GFL_JSON_FIELD_)
}
inline void objectFields(std::string& out, const LastKernel& o) {
  GFL_FIELDS_LastKernel(GFL_JSON_FIELD_)
}
inline void objectFields(std::string& out, const HealthExample& o) {
  GFL_FIELDS_HealthExample(GFL_JSON_FIELD_)
}
#undef GFL_JSON_FIELD_

inline void end(std::string& out) {
  out.append("}\n", 2);
}

}  // namespace gpufl::log::json
