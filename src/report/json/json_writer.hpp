// A small pretty-printing JSON writer for the report (writing only; parsing belongs to the log
// reader). Output is deterministic: two-space indent, keys in call order, doubles rounded to a
// fixed number of decimals with trailing zeros dropped, non-finite numbers as null.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpufl::report {

class JsonWriter {
 public:
  static constexpr int kDefaultDecimals = 4;

  void beginObject();
  void endObject();
  void beginArray();
  void endArray();
  // The next value (or container) belongs to `name` in the enclosing object.
  JsonWriter& key(std::string_view name);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b);
  void value(int v) { value(static_cast<int64_t>(v)); }
  void value(unsigned v) { value(static_cast<uint64_t>(v)); }
  void value(int64_t v);
  void value(uint64_t v);
  void value(double v, int decimals = kDefaultDecimals);
  void null();

  template <typename T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }
  void field(std::string_view name, double v, int decimals) {
    key(name);
    value(v, decimals);
  }

  // The document, '\n' terminated. The writer is empty afterwards.
  std::string take();

 private:
  void beforeValue();
  void open(char c);
  void close(char c);

  struct Level {
    bool object;
    size_t count;
  };
  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

void appendJsonEscaped(std::string& out, std::string_view s);

}  // namespace gpufl::report
