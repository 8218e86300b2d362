// Building blocks of an NDJSON line, for the formatters in ndjson_format.cpp: keys are assembled at
// compile time
// (`num<"dur_ns">(out, v)` appends `,"dur_ns":<v>` with one append for the key), numbers go through
// to_chars (shortest round-trip for doubles), strings through appendJsonString. Internal to
// src/log.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
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
#undef GFL_JSON_FIELD_

inline void end(std::string& out) {
  out.append("}\n", 2);
}

}  // namespace gpufl::log::json
