// A map of the log (session_end's dropped and overhead_ns, session_start's options, range counters'
// metrics) as the text of one JSON object, for exports whose columns are flat (SQLite, Parquet):
// numbers as numbers (doubles with 17 significant digits, exact), option values, which are JSON
// text already, as they are.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <type_traits>

#include "log/json_escape.hpp"

namespace gpufl::exporter {

template <typename V>
std::string mapJson(const std::map<std::string, V>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    if (out.size() > 1) out += ',';
    log::appendJsonString(out, k);
    out += ':';
    if constexpr (std::is_same_v<V, std::string>) {
      if (log::isJsonValue(v))
        out += v;
      else
        log::appendJsonString(out, v);
    } else if constexpr (std::is_floating_point_v<V>) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", static_cast<double>(v));
      out += text;
    } else {
      out += std::to_string(v);
    }
  }
  return out + "}";
}

}  // namespace gpufl::exporter
