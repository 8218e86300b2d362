#include "log/record_fields.hpp"

#include <charconv>

namespace gpufl::log::detail {
namespace {

bool isTypeError(simdjson::error_code e) {
  return e == simdjson::INCORRECT_TYPE || e == simdjson::NUMBER_OUT_OF_RANGE ||
         e == simdjson::NUMBER_ERROR;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// "(x,y,z)" as the writer formats grid and block sizes.
bool parseDim3Text(std::string_view s, Dim3& out) {
  s = trim(s);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  s = s.substr(1, s.size() - 2);
  uint32_t v[3];
  for (int i = 0; i < 3; ++i) {
    const size_t comma = s.find(',');
    if ((comma == std::string_view::npos) != (i == 2)) return false;
    const std::string_view part = trim(s.substr(0, comma));
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v[i]);
    if (ec != std::errc() || end != part.data() + part.size() || part.empty()) return false;
    if (i < 2) s.remove_prefix(comma + 1);
  }
  out = Dim3{v[0], v[1], v[2]};
  return true;
}

}  // namespace

bool RecordContext::readSid(od::value& v) {
  od::raw_json_string raw;
  if (auto e = v.get_raw_json_string().get(raw)) {
    if (e == simdjson::INCORRECT_TYPE)
      fieldError("sid", "not a string");
    else
      syntax(e);
    return !stopped();
  }
  return setSid(rawText(raw));
}

void RecordContext::fieldError(std::string_view name, std::string_view what) {
  if (outcome_ != Outcome::Ok) return;  // the first problem is the one reported
  outcome_ = Outcome::FieldError;
  message_.clear();
  message_.append(type_)
      .append(": field '")
      .append(name_prefix_)
      .append(name)
      .append("' ")
      .append(what);
}

void RecordContext::syntax(simdjson::error_code error) {
  if (outcome_ == Outcome::Syntax) return;
  outcome_ = Outcome::Syntax;
  message_.assign(type_)
      .append(": invalid JSON (")
      .append(simdjson::error_message(error))
      .append(")");
}

void RecordContext::duplicateKey(std::string_view name) {
  if (outcome_ == Outcome::Syntax) return;
  outcome_ = Outcome::Syntax;
  message_.assign(type_).append(": duplicate key '").append(name_prefix_).append(name).append("'");
}

bool RecordContext::fail(od::value& v, simdjson::error_code error, std::string_view name,
                         bool want_unsigned) {
  if (!isTypeError(error)) {
    syntax(error);
    return false;
  }
  od::json_type type;
  // The writer turns a non-finite double into null: the value is unknown, which reads as absent.
  if (error == simdjson::INCORRECT_TYPE && v.type().get(type) == simdjson::SUCCESS &&
      type == od::json_type::null) {
    return false;
  }
  if (error == simdjson::NUMBER_ERROR) {
    fieldError(name, "not a valid number");
  } else if (v.type().get(type) != simdjson::SUCCESS || type != od::json_type::number) {
    fieldError(name, "not a number");
  } else {
    const std::string_view token = v.raw_json_token();
    if (token.find_first_of(".eE") != std::string_view::npos)
      fieldError(name, "not an integer");
    else if (want_unsigned && !token.empty() && token.front() == '-')
      fieldError(name, "is negative");
    else
      fieldError(name, "out of range");
  }
  return false;
}

bool RecordContext::string(od::value& v, std::string_view name, std::string& out) {
  std::string_view s;
  if (auto e = v.get_string().get(s)) {
    if (e == simdjson::INCORRECT_TYPE)
      fieldError(name, "not a string");
    else
      syntax(e);
    return false;
  }
  out.assign(s);
  return true;
}

bool RecordContext::boolean(od::value& v, std::string_view name, bool& out) {
  if (auto e = v.get_bool().get(out)) {
    if (e == simdjson::INCORRECT_TYPE)
      fieldError(name, "not a boolean");
    else
      syntax(e);
    return false;
  }
  return true;
}

bool RecordContext::dim3(od::value& v, std::string_view name, Dim3& out) {
  std::string text;
  if (!string(v, name, text)) return false;
  if (parseDim3Text(text, out)) return true;
  fieldError(name, "not a \"(x,y,z)\" size");
  return false;
}

bool RecordContext::stringArray(od::value& v, std::string_view name,
                                std::vector<std::string>& out) {
  od::array array;
  if (auto e = v.get_array().get(array)) {
    if (e == simdjson::INCORRECT_TYPE)
      fieldError(name, "not an array");
    else
      syntax(e);
    return false;
  }
  for (auto item : array) {
    std::string_view s;
    if (auto e = item.get_string().get(s)) {
      if (e == simdjson::INCORRECT_TYPE)
        fieldError(name, "not an array of strings");
      else
        syntax(e);
      return false;
    }
    out.emplace_back(s);
  }
  return true;
}

bool RecordContext::rawJsonMap(od::value& v, std::string_view name,
                               std::map<std::string, std::string>& out) {
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
    std::string_view key, text;
    od::json_type type;
    simdjson::error_code e = std::move(item).get(field);
    if (!e) e = field.unescaped_key().get(key);
    if (!e) e = field.value().type().get(type);
    if (!e) {
      // The value is kept as JSON text: objects and arrays whole, scalars as their token.
      od::value& value = field.value();
      od::object inner_object;
      od::array inner_array;
      if (type == od::json_type::object) {
        e = value.get_object().get(inner_object);
        if (!e) e = inner_object.raw_json().get(text);
      } else if (type == od::json_type::array) {
        e = value.get_array().get(inner_array);
        if (!e) e = inner_array.raw_json().get(text);
      } else {
        text = trim(value.raw_json_token());
      }
    }
    if (e) {
      syntax(e);
      return false;
    }
    out[std::string(key)] = std::string(text);
  }
  return true;
}

void RecordContext::require(std::initializer_list<std::pair<const char*, bool>> fields) {
  for (const auto& [name, present] : fields) {
    if (!present) {
      fieldError(name, "missing");
      return;
    }
  }
}

}  // namespace gpufl::log::detail
