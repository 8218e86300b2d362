// The column table of one record type, generated from its field table (core/record_schema.hpp): a
// record type whose DataFrame is its fields as such needs no code here when a field is added. One
// column per field, under its JSON key, in table order, typed by the member:
//   bool -> uint8; a signed integer -> int64 (pandas' integer); an unsigned one or a double -> that
//   type; std::optional<number> -> double (NaN: unset); std::string -> StringColumn (an empty
//   OmitDefault string: missing); an enum -> StringColumn of its wire name; Dim3 -> "(x,y,z)"
//   StringColumn plus <key>_x, <key>_y, <key>_z (uint32); std::vector<std::string> -> StringColumn
//   of the items joined with ',' (none: missing); std::optional<object> (kernel_def's occupancy,
//   flattened on the wire) -> the object's own columns; when the object is absent: integers -1
//   (int64), doubles NaN, strings missing; std::vector<object> (incident.in_flight, ...) -> no
//   column: a table of its own (RecordColumns of the object); a map of numbers (health.cpu_ns,
//   ...) -> StringColumn of its JSON object text, as the log writes it (json.loads reads it back).
// Tables whose rows are not their record's fields as such (kernels: the def join; scopes: begin and
// end joined; range counters: one row per metric) stay hand-written in session_loader.*.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/record_schema.hpp"
#include "log/json_escape.hpp"
#include "string_column.hpp"

namespace gpufl::py {

using Column =
    std::variant<std::vector<uint8_t>, std::vector<uint32_t>, std::vector<int32_t>,
                 std::vector<uint64_t>, std::vector<int64_t>, std::vector<double>, StringColumn>;

namespace columns {

inline std::string dimText(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// A std::optional of an object with its own field table.
template <typename M>
constexpr bool kOptionalObject = [] {
  if constexpr (schema::detail::IsOptional<M>::value)
    return std::is_class_v<typename M::value_type>;
  else
    return false;
}();

// The column type of a number member M: signed integers widen to int64 (also inside an optional
// object, where -1 stands for absent).
template <typename M>
using NumberColumn = std::conditional_t<std::is_integral_v<M> && std::is_signed_v<M>, int64_t, M>;

// The column(s) a member of type M takes, appended to `out`.
template <typename M>
void add(std::vector<std::pair<std::string, Column>>& out, const std::string& key) {
  if constexpr (std::is_same_v<M, bool>) {
    out.emplace_back(key, std::vector<uint8_t>{});
  } else if constexpr (std::is_arithmetic_v<M>) {
    out.emplace_back(key, std::vector<NumberColumn<M>>{});
  } else if constexpr (std::is_same_v<M, Dim3>) {
    out.emplace_back(key, StringColumn{});
    for (const char* axis : {"_x", "_y", "_z"})
      out.emplace_back(key + axis, std::vector<uint32_t>{});
  } else if constexpr (std::is_same_v<M, std::string> || std::is_enum_v<M> ||
                       std::is_same_v<M, std::vector<std::string>>) {
    out.emplace_back(key, StringColumn{});
  } else if constexpr (schema::kindOf<M>() == schema::Kind::ObjectList) {
    // No column: a list of objects is a table of its own (incident.in_flight -> incident_launches).
  } else if constexpr (schema::kindOf<M>() == schema::Kind::NumberMap) {
    out.emplace_back(key, StringColumn{});
  } else if constexpr (kOptionalObject<M>) {
    const typename M::value_type probe{};
    schema::Schema<typename M::value_type>::forEach(
        probe, [&](const schema::FieldInfo& f, const auto& m) {
          add<std::remove_cvref_t<decltype(m)>>(out, std::string(f.key));
        });
  } else {
    static_assert(
        schema::detail::IsOptional<M>::value && std::is_arithmetic_v<typename M::value_type>,
        "a field type record_columns.hpp has no column for");
    out.emplace_back(key, std::vector<double>{});
  }
}

// Appends member `m` to its column(s), starting at out[i] (i moves past them). `absent`: inside an
// unset optional object (integers -1, doubles NaN, strings missing).
template <typename M>
void push(std::vector<std::pair<std::string, Column>>& out, size_t& i, schema::Presence presence,
          const M& m, bool absent = false) {
  if constexpr (std::is_same_v<M, bool>) {
    std::get<std::vector<uint8_t>>(out[i++].second).push_back(m ? 1 : 0);
  } else if constexpr (std::is_arithmetic_v<M>) {
    auto& c = std::get<std::vector<NumberColumn<M>>>(out[i++].second);
    if (!absent)
      c.push_back(m);
    else if constexpr (std::is_floating_point_v<M>)
      c.push_back(kNaN);
    else
      c.push_back(static_cast<NumberColumn<M>>(-1));
  } else if constexpr (std::is_same_v<M, Dim3>) {
    std::get<StringColumn>(out[i++].second).push(dimText(m));
    for (const uint32_t v : {m.x, m.y, m.z})
      std::get<std::vector<uint32_t>>(out[i++].second).push_back(v);
  } else if constexpr (std::is_same_v<M, std::string>) {
    auto& c = std::get<StringColumn>(out[i++].second);
    if (absent || (m.empty() && presence == schema::Presence::OmitDefault))
      c.pushMissing();
    else
      c.push(m);
  } else if constexpr (std::is_enum_v<M>) {
    auto& c = std::get<StringColumn>(out[i++].second);
    if (absent)
      c.pushMissing();
    else
      c.push(schema::wireName(m));
  } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
    auto& c = std::get<StringColumn>(out[i++].second);
    if (m.empty()) {
      c.pushMissing();
    } else {
      std::string joined;
      for (const std::string& s : m) joined += (joined.empty() ? "" : ",") + s;
      c.push(joined);
    }
  } else if constexpr (schema::kindOf<M>() == schema::Kind::ObjectList) {
    // Its own table (see add).
  } else if constexpr (schema::kindOf<M>() == schema::Kind::NumberMap) {
    std::string text = "{";
    for (const auto& [k, v] : m) {
      if (text.size() > 1) text += ',';
      log::appendJsonString(text, k);
      text += ':' + std::to_string(v);
    }
    std::get<StringColumn>(out[i++].second).push(text + "}");
  } else if constexpr (kOptionalObject<M>) {
    using N = typename M::value_type;
    const N& value = m ? *m : N{};
    schema::Schema<N>::forEach(value, [&](const schema::FieldInfo& f, const auto& x) {
      push(out, i, f.presence, x, !m.has_value());
    });
  } else {
    std::get<std::vector<double>>(out[i++].second).push_back(m ? static_cast<double>(*m) : kNaN);
  }
}

}  // namespace columns

template <typename T>
class RecordColumns {
 public:
  RecordColumns() {
    const T probe{};
    schema::Schema<T>::forEach(probe, [&](const schema::FieldInfo& f, const auto& m) {
      columns::add<std::remove_cvref_t<decltype(m)>>(columns_, std::string(f.key));
    });
  }

  void push(const T& e) {
    size_t i = 0;
    schema::Schema<T>::forEach(e, [&](const schema::FieldInfo& f, const auto& m) {
      columns::push(columns_, i, f.presence, m);
    });
  }

  // (key, column), in table order.
  std::vector<std::pair<std::string, Column>>& columns() { return columns_; }

 private:
  std::vector<std::pair<std::string, Column>> columns_;
};

}  // namespace gpufl::py
