#include "agent/checkpoint.hpp"

#include <simdjson.h>

#include "log/json_escape.hpp"

namespace gpufl::agent {

std::string encodeState(const AgentState& state) {
  std::string out =
      "{\"version\":1,\"next_batch\":" + std::to_string(state.next_batch) + ",\"streams\":{";
  bool first = true;
  for (const auto& [key, s] : state.streams) {
    if (!first) out += ',';
    first = false;
    log::appendJsonString(out, key);
    out += ":{\"next_seg\":" + std::to_string(s.next_seg) +
           ",\"offset\":" + std::to_string(s.pos.offset) +
           ",\"lines\":" + std::to_string(s.pos.lines) + ",\"head\":" + std::to_string(s.head) +
           "}";
  }
  out += "},\"shipped\":[";
  first = true;
  for (const std::string& s : state.shipped) {
    if (!first) out += ',';
    first = false;
    log::appendJsonString(out, s);
  }
  out += "],\"otlp_pending\":{";
  first = true;
  for (const auto& [key, mask] : state.otlp_pending) {
    if (!first) out += ',';
    first = false;
    log::appendJsonString(out, key);
    out += ':';
    out += std::to_string(mask);
  }
  out += "}}\n";
  return out;
}

bool decodeState(const std::string& text, AgentState* state, std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc)) {
    *error = "not valid JSON";
    return false;
  }
  uint64_t version = 0;
  if (doc["version"].get_uint64().get(version) || version != 1) {
    *error = "field 'version': missing or not 1";
    return false;
  }
  AgentState st;
  if (doc["next_batch"].get_uint64().get(st.next_batch)) {
    *error = "field 'next_batch': missing or not an unsigned integer";
    return false;
  }
  simdjson::dom::object streams;
  if (doc["streams"].get_object().get(streams)) {
    *error = "field 'streams': missing or not an object";
    return false;
  }
  for (auto field : streams) {
    StreamPos p;
    simdjson::dom::element v = field.value;
    if (v["next_seg"].get_uint64().get(p.next_seg) || v["offset"].get_uint64().get(p.pos.offset) ||
        v["lines"].get_uint64().get(p.pos.lines) || v["head"].get_uint64().get(p.head)) {
      *error = "field 'streams." + std::string(field.key) +
               "': next_seg/offset/lines/head missing or wrong";
      return false;
    }
    st.streams.emplace(std::string(field.key), p);
  }
  simdjson::dom::array shipped;
  if (doc["shipped"].get_array().get(shipped)) {
    *error = "field 'shipped': missing or not an array";
    return false;
  }
  for (auto v : shipped) {
    std::string_view s;
    if (v.get_string().get(s)) {
      *error = "field 'shipped': an element is not a string";
      return false;
    }
    st.shipped.emplace_back(s);
  }
  simdjson::dom::object pending;
  if (!doc["otlp_pending"].get_object().get(
          pending)) {  // absent in states of agents without --otlp
    for (auto field : pending) {
      uint64_t mask = 0;
      if (field.value.get_uint64().get(mask)) {
        *error = "field 'otlp_pending." + std::string(field.key) + "': not an unsigned integer";
        return false;
      }
      st.otlp_pending[std::string(field.key)] = static_cast<uint32_t>(mask);
    }
  }
  *state = std::move(st);
  return true;
}

}  // namespace gpufl::agent
