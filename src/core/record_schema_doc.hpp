// The field reference of docs/log-format.md, generated from the field tables (record_schema.hpp):
// one table per record type, one row per field (key, member, presence, value kind, unit). The
// checked-in document holds it between kBeginMarker and kEndMarker; gpufl_schema_doc rewrites it
// there, and the CTest gpufl_schema_doc_current fails while it is not current.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpufl::schema {

inline constexpr std::string_view kBeginMarker =
    "<!-- field reference: generated from src/core/record_schema.hpp by gpufl_schema_doc -->";
inline constexpr std::string_view kEndMarker = "<!-- end of the generated field reference -->";

// The markdown of every record type's fields, in record_list.hpp's order.
std::string fieldReference();

// `doc` with the text between the markers replaced by fieldReference(); nullopt (and `why`) when
// the markers are missing or out of order.
std::optional<std::string> withFieldReference(std::string_view doc, std::string* why);

}  // namespace gpufl::schema
