#include "agent/line_check.hpp"

#include <simdjson.h>

namespace gpufl::agent {

struct LineChecker::Impl {
  simdjson::dom::parser parser;
};

LineChecker::LineChecker() : impl_(std::make_unique<Impl>()) {}
LineChecker::~LineChecker() = default;

LineInfo LineChecker::check(std::string_view text) {
  LineInfo info;
  simdjson::dom::element doc;
  // The DOM parser validates the whole line (an on-demand parse would stop at the fields it needs
  // and let a line damaged after them through).
  if (impl_->parser.parse(text.data(), text.size(), false).get(doc)) {
    info.why = "not valid JSON";
    return info;
  }
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) {
    info.why = "not a JSON object";
    return info;
  }
  std::string_view type, sid;
  if (obj["type"].get_string().get(type)) {
    info.why = "no string field 'type'";
    return info;
  }
  if (obj["sid"].get_string().get(sid)) {
    info.why = "no string field 'sid'";
    return info;
  }
  info.ok = true;
  if (type == "session_end") {
    info.session_end = true;
    info.sid = std::string(sid);
  }
  return info;
}

uint64_t fnv1a64(std::string_view data, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace gpufl::agent
