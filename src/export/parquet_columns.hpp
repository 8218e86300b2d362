// The Parquet columns of a record type, generated from its field table (core/record_schema.hpp),
// and the writer of one record as a row of them. One column per field, under its JSON key:
//   bool -> BOOLEAN; integers -> INT32/INT64 by width, unsigned ones annotated UINT_8..UINT_64;
//   double -> DOUBLE; std::string and enums (their wire names) -> UTF8 strings;
//   Dim3 -> <key>_x, <key>_y, <key>_z (UINT_32); a nested object (a device, kernel_def's occupancy)
//   -> its own fields' columns; lists of strings -> one string, items joined with '\n'; maps
//   (dropped, options, metrics) -> a JSON object as text; session_start's devices -> none (the
//   devices table holds them).
// Nullable: a std::optional (and every column of an optional object), and OmitDefault strings,
// lists and maps (null when empty). Exceptions, the rows whose wire form is not the member's value
// as such: an end time written as a duration (`dur_ns` = end_ns - start_ns), and the flags carried
// by the record's type or op (`is_memset`, `is_free`, named by their member).
#pragma once

#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "core/record_schema.hpp"
#include "export/map_json.hpp"
#include "export/parquet_file.hpp"
#include "log/json_fields.hpp"

namespace gpufl::exporter::parquet_columns {

using parquet::ColumnSpec;
using parquet::ColumnType;

struct Column {
  ColumnSpec spec;
  std::string unit;
};

template <typename M>
constexpr bool kObject = requires {
  schema::Schema<M>::fields;
};

inline std::string columnName(const schema::FieldInfo& f) {
  return f.key == "type" || f.key == "op" ? std::string(f.member) : std::string(f.key);
}

template <typename M>
constexpr ColumnType integerType() {
  if constexpr (std::is_signed_v<M>)
    return sizeof(M) <= 4 ? ColumnType::Int32 : ColumnType::Int64;
  else if constexpr (sizeof(M) == 1)
    return ColumnType::UInt8;
  else if constexpr (sizeof(M) == 2)
    return ColumnType::UInt16;
  else if constexpr (sizeof(M) == 4)
    return ColumnType::UInt32;
  else
    return ColumnType::UInt64;
}

// Appends the column(s) of a member of type M named `name`.
template <typename M>
void add(std::vector<Column>& out, const std::string& name, std::string_view unit, bool optional) {
  if constexpr (schema::detail::IsOptional<M>::value) {
    add<typename M::value_type>(out, name, unit, true);
  } else if constexpr (std::is_same_v<M, Dim3>) {
    for (const char* axis : {"_x", "_y", "_z"})
      out.push_back({{name + axis, ColumnType::UInt32, optional}, std::string(unit)});
  } else if constexpr (std::is_same_v<M, std::vector<DeviceInfo>>) {
  } else if constexpr (kObject<M>) {
    const M probe{};
    schema::Schema<M>::forEach(probe, [&](const schema::FieldInfo& f, const auto& m) {
      add<std::remove_cvref_t<decltype(m)>>(out, columnName(f), f.unit, optional);
    });
  } else if constexpr (std::is_same_v<M, bool>) {
    out.push_back({{name, ColumnType::Bool, optional}, std::string(unit)});
  } else if constexpr (std::is_integral_v<M>) {
    out.push_back({{name, integerType<M>(), optional}, std::string(unit)});
  } else if constexpr (std::is_floating_point_v<M>) {
    out.push_back({{name, ColumnType::Double, optional}, std::string(unit)});
  } else {  // strings, enums, string lists, maps
    out.push_back({{name, ColumnType::String, optional}, std::string(unit)});
  }
}

// How many columns a member of type M takes.
template <typename M>
size_t count() {
  std::vector<Column> cols;
  add<M>(cols, "", "", false);
  return cols.size();
}

// The columns of record type T: `sid`, then one or more per field.
template <typename T>
std::vector<Column> ofRecord() {
  std::vector<Column> cols{{{"sid", ColumnType::String, false}, ""}};
  const T probe{};
  schema::Schema<T>::forEach(probe, [&](const schema::FieldInfo& f, const auto& m) {
    using M = std::remove_cvref_t<decltype(m)>;
    const bool omit = f.presence == schema::Presence::OmitDefault &&
                      (std::is_same_v<M, std::string> || !std::is_arithmetic_v<M>);
    add<M>(cols, columnName(f), f.unit, omit);
  });
  return cols;
}

// Puts a member's value(s) into the file's current row, in the order add() made the columns.
class RowWriter {
 public:
  explicit RowWriter(parquet::FileWriter& w) : w_(w) {}

  template <typename M>
  void put(const M& v, bool omit_empty = false) {
    if constexpr (schema::detail::IsOptional<M>::value) {
      if (v)
        put(*v);
      else
        nulls<typename M::value_type>();
    } else if constexpr (std::is_same_v<M, Dim3>) {
      for (uint32_t x : {v.x, v.y, v.z}) w_.putInt(x);
    } else if constexpr (std::is_same_v<M, std::vector<DeviceInfo>>) {
    } else if constexpr (kObject<M>) {
      schema::Schema<M>::forEach(v, [&](const schema::FieldInfo&, const auto& m) { put(m); });
    } else if constexpr (std::is_same_v<M, bool> || std::is_integral_v<M>) {
      w_.putInt(static_cast<int64_t>(v));
    } else if constexpr (std::is_floating_point_v<M>) {
      w_.putDouble(static_cast<double>(v));
    } else if constexpr (std::is_enum_v<M>) {
      w_.putString(schema::wireName(v));
    } else if constexpr (std::is_same_v<M, std::string>) {
      if (omit_empty && v.empty())
        w_.putNull();
      else
        w_.putString(v);
    } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
      std::string lines;
      for (const std::string& l : v) lines += (lines.empty() ? "" : "\n") + l;
      if (omit_empty && v.empty())
        w_.putNull();
      else
        w_.putString(lines);
    } else if constexpr (requires(std::string & out) { log::json::objectFields(out, v.front()); }) {
      // A list of objects (incident.in_flight, ...): JSON text, as the log writes it.
      std::string list = "[";
      for (const auto& item : v) {
        if (list.size() > 1) list += ',';
        const size_t open = list.size();
        log::json::objectFields(list, item);
        if (list.size() == open) {
          list += "{}";
          continue;
        }
        list[open] = '{';
        list += '}';
      }
      w_.putString(list + "]");
    } else {
      if (omit_empty && v.empty())
        w_.putNull();
      else
        w_.putString(mapJson(v));
    }
  }

  // Every field of record `e` after its sid (ofRecord's columns).
  template <typename T>
  void record(const T& e) {
    w_.putString(e.sid);
    schema::Schema<T>::forEach(e, [&](const schema::FieldInfo& f, const auto& m) {
      if constexpr (requires { e.start_ns + e.end_ns; }) {
        if (f.member == "end_ns" && f.key == "dur_ns") return w_.putInt(e.end_ns - e.start_ns);
      }
      put(m, f.presence == schema::Presence::OmitDefault);
    });
  }

 private:
  template <typename M>
  void nulls() {
    for (size_t i = count<M>(); i > 0; --i) w_.putNull();
  }
  parquet::FileWriter& w_;
};

}  // namespace gpufl::exporter::parquet_columns
