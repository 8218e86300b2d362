#include "core/record_schema_doc.hpp"

#include "core/record_schema.hpp"

namespace gpufl::schema {

std::string fieldReference() {
  std::string out;
  forEachRecordType([&]<typename T>() {
    out += "\n#### `";
    out += Schema<T>::type;
    out += "` (";
    out += Schema<T>::channel == "all" ? "every" : Schema<T>::channel;
    out += " channel)\n\n| key | member | presence | value | unit |\n|---|---|---|---|---|\n";
    forEachRow<T>([&](const FieldInfo& f, std::string_view parent) {
      out += "| `";
      out += f.key;
      out += "` | ";
      if (!parent.empty()) out.append(parent).append(" / ");
      out += f.member;
      out.append(" | ").append(presenceName(f.presence)).append(" | ").append(kindName(f.kind));
      out.append(" | ").append(f.unit).append(" |\n");
    });
  });
  return out;
}

std::optional<std::string> withFieldReference(std::string_view doc, std::string* why) {
  const size_t begin = doc.find(kBeginMarker);
  const size_t end = doc.find(kEndMarker);
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    if (why) *why = "the generated field reference's markers are missing or out of order";
    return std::nullopt;
  }
  std::string out(doc.substr(0, begin + kBeginMarker.size()));
  out += "\n";
  out += fieldReference();
  out += "\n";
  out += doc.substr(end);
  return out;
}

}  // namespace gpufl::schema
