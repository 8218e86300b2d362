// Field-level helpers for turning one simdjson On-Demand object into one event struct. Internal to
// src/log: only record_*.cpp include it, so simdjson stays out of every public header.
//
// Error policy (docs/log-format.md, "Rules for readers"): unknown fields are skipped; a required
// field that is missing or of the wrong type makes the record a FieldError naming the field; broken
// JSON is a Syntax error (the line is garbage). The first problem of a record is the one reported.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/events.hpp"
#include "core/record_schema.hpp"

namespace gpufl::log::detail {

namespace od = simdjson::ondemand;

// Wrap-around addition: hostile input must not reach signed-overflow undefined behaviour.
inline int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// a == b, for the short names compared once per record (sids): a loop the compiler keeps inline
// costs less than a call to memcmp for a few bytes.
inline bool sameText(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.size() > 32) return a == b;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

enum class Outcome {
  Ok,
  FieldError,    // well-formed JSON, but a required field is missing or has the wrong type
  OtherSession,  // belongs to a session that is not being read: dropped silently
  Syntax,        // not valid JSON: the line is garbage
};

// State of the record being parsed: its type (for messages), the session wanted and the first
// problem.
class RecordContext {
 public:
  RecordContext(std::string_view type, std::string_view want_sid)
      : type_(type), want_sid_(want_sid) {}

  Outcome outcome() const { return outcome_; }
  bool stopped() const { return outcome_ == Outcome::Syntax || outcome_ == Outcome::OtherSession; }
  const std::string& message() const { return message_; }
  std::string_view sid() const { return sid_; }
  bool haveSid() const { return have_sid_; }

  // Handles the "sid" field; false when the record belongs to another session (stop parsing it).
  bool readSid(od::value& v);
  // The same for a sid already read as written (not unescaped).
  bool setSid(std::string_view s) {
    sid_ = s;
    have_sid_ = true;
    if (!want_sid_.empty() && !sameText(s, want_sid_)) {
      if (outcome_ != Outcome::Syntax) outcome_ = Outcome::OtherSession;
      return false;
    }
    return true;
  }

  // Readers for one value: true when `out` was set. On failure the problem is recorded, except for
  // a null number, which counts as absent (a required field then reads as missing).
  template <typename T>
  bool number(od::value& v, std::string_view name, T& out);
  template <typename T>
  bool number(od::value& v, std::string_view name, std::optional<T>& out) {
    T tmp{};
    if (!number(v, name, tmp)) return false;
    out = tmp;
    return true;
  }
  bool string(od::value& v, std::string_view name, std::string& out);
  bool boolean(od::value& v, std::string_view name, bool& out);
  bool dim3(od::value& v, std::string_view name, Dim3& out);
  bool stringArray(od::value& v, std::string_view name, std::vector<std::string>& out);
  template <typename T>
  bool numberMap(od::value& v, std::string_view name, std::map<std::string, T>& out);
  bool rawJsonMap(od::value& v, std::string_view name, std::map<std::string, std::string>& out);
  // The reader above that fits the field's C++ type (for parsers generated from the field tables).
  template <typename T>
  bool field(od::value& v, std::string_view name, T& out) {
    if constexpr (std::is_same_v<T, bool>)
      return boolean(v, name, out);
    else if constexpr (std::is_same_v<T, std::string>)
      return string(v, name, out);
    else if constexpr (std::is_same_v<T, Dim3>)
      return dim3(v, name, out);
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      return stringArray(v, name, out);
    else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>)
      return rawJsonMap(v, name, out);
    else if constexpr (requires { out.try_emplace(std::string()); })
      return numberMap(v, name, out);
    else if constexpr (std::is_enum_v<T>) {
      std::string text;
      if (!string(v, name, text)) return false;
      schema::fromWireName(text, out);
      return true;
    } else
      return number(v, name, out);  // a number or an optional one
  }

  // Records `name` as missing for the first required field whose flag is false.
  void require(std::initializer_list<std::pair<const char*, bool>> fields);
  void fieldError(std::string_view name, std::string_view what);
  void syntax(simdjson::error_code error);
  // A key that appears twice in one object: the line is malformed (a Syntax outcome).
  void duplicateKey(std::string_view name);
  // Field names in messages get this prefix (e.g. "devices." while parsing a device).
  void setNamePrefix(std::string_view prefix) { name_prefix_ = prefix; }

  // A failed get_*() on `v`: a type problem becomes a FieldError, anything else a Syntax error.
  bool fail(od::value& v, simdjson::error_code error, std::string_view name, bool want_unsigned);

 private:
  std::string_view type_;
  std::string_view want_sid_;
  std::string_view sid_;
  std::string_view name_prefix_;
  bool have_sid_ = false;
  Outcome outcome_ = Outcome::Ok;
  std::string message_;
};

template <typename T>
bool RecordContext::number(od::value& v, std::string_view name, T& out) {
  if constexpr (std::is_floating_point_v<T>) {
    double d;
    if (auto e = v.get_double().get(d)) return fail(v, e, name, false);
    out = static_cast<T>(d);
    return true;
  } else if constexpr (std::is_signed_v<T>) {
    int64_t i;
    if (auto e = v.get_int64().get(i)) return fail(v, e, name, false);
    if (i < int64_t{std::numeric_limits<T>::min()} || i > int64_t{std::numeric_limits<T>::max()}) {
      fieldError(name, "out of range");
      return false;
    }
    out = static_cast<T>(i);
    return true;
  } else {
    uint64_t u;
    if (auto e = v.get_uint64().get(u)) return fail(v, e, name, true);
    if (u > uint64_t{std::numeric_limits<T>::max()}) {
      fieldError(name, "out of range");
      return false;
    }
    out = static_cast<T>(u);
    return true;
  }
}

template <typename T>
bool RecordContext::numberMap(od::value& v, std::string_view name, std::map<std::string, T>& out) {
  od::object obj;
  if (auto e = v.get_object().get(obj)) {
    if (e == simdjson::INCORRECT_TYPE)
      fieldError(name, "not an object");
    else
      syntax(e);
    return false;
  }
  for (auto item : obj) {
    od::field field;
    std::string_view key;
    simdjson::error_code e = std::move(item).get(field);
    if (!e) e = field.unescaped_key().get(key);
    if (e) {
      syntax(e);
      return false;
    }
    T value{};
    // Report "metrics.<key>" so the user sees which entry is wrong.
    std::string entry = std::string(name) + "." + std::string(key);
    if (!number(field.value(), entry, value)) {
      if (outcome_ != Outcome::Ok) return false;
      continue;  // null: an unknown value is left out of the map
    }
    out[std::string(key)] = value;
  }
  return true;
}

// A string as written, without its quotes and not unescaped: for the names this reader compares
// (keys, type, sid), which writers never escape, this skips simdjson's unescaping copy; a name
// written with escapes simply matches nothing. Stage 1 has verified that every string is closed, so
// the scan stays inside the document.
inline std::string_view rawText(od::raw_json_string s) {
  const char* const begin = s.raw();
  const char* p = begin;
  while (*p != '"') p += *p == '\\' ? 2 : 1;
  return {begin, static_cast<size_t>(p - begin)};
}

// The keys of one object so far, to find a repeated one. Records have few keys, so a linear search
// over a fixed array is cheapest; keys past kMax are not checked (no record of the format has that
// many).
class KeySet {
 public:
  static constexpr size_t kMax = 48;
  // False when `key` was already inserted.
  bool insert(std::string_view key) {
    for (size_t i = 0; i < size_; ++i)
      if (size_of_[i] == key.size() && std::memcmp(data_[i], key.data(), key.size()) == 0)
        return false;
    if (size_ < kMax) {
      data_[size_] = key.data();
      size_of_[size_++] = key.size();
    }
    return true;
  }

 private:
  // Left uninitialised on purpose: only [0, size_) is read. One KeySet lives per record, and
  // zeroing an array of 48 string_views (rep stos of 768 bytes) was 3% of a report's time.
  const char* data_[kMax];
  size_t size_of_[kMax];
  size_t size_ = 0;
};

// Calls on(key, value) for every field except "type" and "sid" (sid is checked here, against the
// session wanted). Stops at a syntax error, a repeated key (the record is ambiguous: malformed) or
// at a record of another session.
template <typename OnField>
void forEachField(od::object& obj, RecordContext& ctx, OnField&& on) {
  KeySet seen;
  for (auto item : obj) {
    od::field field;
    if (auto e = std::move(item).get(field)) return ctx.syntax(e);
    const std::string_view key = rawText(field.key());
    if (!seen.insert(key)) return ctx.duplicateKey(key);
    if (key == "type") continue;
    if (key == "sid") {
      if (!ctx.readSid(field.value())) return;
      continue;
    }
    on(key, field.value());
    if (ctx.stopped()) return;
  }
}

// parseRecord(obj, ctx, out) for every record type of core/record_list.hpp (record_types.cpp). Each
// fills `out` and leaves problems in `ctx`; the sid is not copied into `out` (the caller does that
// once the record is accepted). memcpy/memset_event: the caller sets out.is_memset by the type
// first. kernel_event is declared but not defined: its fields are read by the kernel chain decoder
// (record_parser.cpp), which places each event from its differences; a call is a link error.
#define GFL_PARSE_DECLARE_(T, type, channel, on) \
  void parseRecord(od::object& obj, RecordContext& ctx, T& out);
GFL_RECORDS(GFL_PARSE_DECLARE_)
#undef GFL_PARSE_DECLARE_

}  // namespace gpufl::log::detail
