// The JSON report written from field tables: each type of the report model has a table of its keys
// (model/report_fields.hpp; a section's own types beside the section), and one generic writer turns
// any value into JSON by its C++ type and, for a struct, by its table. A key is spelled once, in
// its table row.
//
// A table is an X-macro `GFL_REPORT_JSON_<Type>(F, K, N, L)` with one row per key, in output order:
//   F(member, format)          key "member", the value v.member
//   N(sub, member, format)     key "member", the value v.sub.member (a field of a nested struct)
//   K("key", expression, fmt)  a key that is not a member's name, or a value computed from `v` (the
//                              object) and `r` (the whole Report, for lookups such as scope names)
//   L()                        every field of the log record's own table (core/record_schema.hpp),
//   by
//                              its log key
// and GFL_REPORT_JSON_FIELDS(Type), in Type's namespace, makes its writer.
//
// Values by C++ type: integers, bool and strings as such; doubles rounded to format.decimals;
// enums by their log names (schema::wireName); Dim3 as "(x,y,z)"; std::optional as null when empty;
// vectors as arrays; std::map<std::string, V> as objects; a struct with a table as an object, or
// null when jsonNull(value) says it is the summary of nothing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/events.hpp"
#include "core/record_schema.hpp"
#include "report/json/json_writer.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {

struct Report;

namespace json {

// How a row's value is written.
struct Format {
  int decimals = JsonWriter::kDefaultDecimals;  // doubles (and maps of them): decimals kept
  bool omit_empty = false;  // the key is left out when the value is empty: unset, "", [], {} or 0
};
inline constexpr Format kPlain{};
inline constexpr Format kDec1{.decimals = 1};
inline constexpr Format kDec2{.decimals = 2};
inline constexpr Format kDec3{.decimals = 3};
inline constexpr Format kDec6{.decimals = 6};
inline constexpr Format kOmitEmpty{.omit_empty = true};

// A table type whose object stands for nothing in some states is written as null then: overload
// jsonNull for it beside its table (found by argument-dependent lookup).
template <typename T>
bool jsonNull(const T&) {
  return false;
}

namespace detail {
// The log schema's type traits (core/record_schema.hpp): one definition of what an optional, a list
// and a map are.
using schema::detail::IsMap;
using schema::detail::IsOptional;
using schema::detail::IsVector;

template <typename T>
bool empty(const T& v) {
  if constexpr (IsOptional<T>::value)
    return !v.has_value();
  else if constexpr (requires { v.empty(); })
    return v.empty();
  else if constexpr (std::is_arithmetic_v<T>)
    return v == T{};
  else
    return false;
}
}  // namespace detail

template <typename T>
void value(JsonWriter& w, const T& v, Format f, const Report& r);

// Writes `key` and `v` into the enclosing object (nothing when f.omit_empty and v is empty).
template <typename T>
void put(JsonWriter& w, std::string_view key, const T& v, Format f, const Report& r) {
  if (f.omit_empty && detail::empty(v)) return;
  w.key(key);
  value(w, v, f, r);
}
template <typename T>
void put(JsonWriter& w, std::string_view key, const T& v, const Report& r) {
  put(w, key, v, kPlain, r);
}

template <typename T>
void value(JsonWriter& w, const T& v, Format f, const Report& r) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string> ||
                std::is_convertible_v<T, const char*>) {
    w.value(v);
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    w.value(v);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    w.value(static_cast<int64_t>(v));
  } else if constexpr (std::is_integral_v<T>) {
    w.value(static_cast<uint64_t>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    w.value(static_cast<double>(v), f.decimals);
  } else if constexpr (std::is_enum_v<T>) {
    w.value(schema::wireName(v));
  } else if constexpr (std::is_same_v<T, Dim3>) {
    w.value(formatDim3(v));
  } else if constexpr (detail::IsOptional<T>::value) {
    if (v)
      value(w, *v, f, r);
    else
      w.null();
  } else if constexpr (detail::IsVector<T>::value) {
    w.beginArray();
    for (const auto& e : v) value(w, e, f, r);
    w.endArray();
  } else if constexpr (detail::IsMap<T>::value) {
    w.beginObject();
    for (const auto& [k, e] : v) put(w, k, e, Format{.decimals = f.decimals}, r);
    w.endObject();
  } else {
    static_assert(
        requires { writeFields(w, v, r); },
        "no JSON table for this type: add GFL_REPORT_JSON_<Type> and "
        "GFL_REPORT_JSON_FIELDS(Type) (json/model_json.hpp)");
    if (jsonNull(v)) {
      w.null();
      return;
    }
    w.beginObject();
    writeFields(w, v, r);
    w.endObject();
  }
}

// Every field of a log record by its log table (core/record_schema.hpp), optionals as null.
template <typename T>
void putLogFields(JsonWriter& w, const T& v, const Report& r) {
  schema::Schema<T>::forEach(
      v, [&](const schema::FieldInfo& f, const auto& member) { put(w, f.key, member, kPlain, r); });
}

}  // namespace json
}  // namespace gpufl::report

// Row expanders of a table, inside writeFields(w, v, r).
#define GFL_REPORT_JSON_F_(member, format) \
  ::gpufl::report::json::put(w, #member, v.member, format, r);
#define GFL_REPORT_JSON_N_(sub, member, format) \
  ::gpufl::report::json::put(w, #member, v.sub.member, format, r);
#define GFL_REPORT_JSON_K_(key, expression, format) \
  ::gpufl::report::json::put(w, key, expression, format, r);
#define GFL_REPORT_JSON_L_() ::gpufl::report::json::putLogFields(w, v, r);

// The JSON writer of Type from its table GFL_REPORT_JSON_<Type>; use it in Type's namespace.
#define GFL_REPORT_JSON_FIELDS(Type)                                                            \
  [[maybe_unused]] inline void writeFields(::gpufl::report::JsonWriter& w, const Type& v,       \
                                           [[maybe_unused]] const ::gpufl::report::Report& r) { \
    using namespace ::gpufl::report::json;                                                      \
    GFL_REPORT_JSON_##Type(GFL_REPORT_JSON_F_, GFL_REPORT_JSON_K_, GFL_REPORT_JSON_N_,          \
                           GFL_REPORT_JSON_L_)                                                  \
  }
