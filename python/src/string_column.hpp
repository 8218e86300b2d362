// A string column stored as codes into a table of distinct values, for the column tables of
// session_loader.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpufl::py {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Codes into `values`, -1 = missing. Python turns it into a pandas Categorical without one str per
// row.
class StringColumn {
 public:
  void push(std::string_view s);
  void pushMissing() { codes.push_back(-1); }
  size_t size() const { return codes.size(); }

  std::vector<int32_t> codes;
  std::vector<std::string> values;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> index_;
  int32_t last_ = -1;  // rows often repeat the previous value: one compare instead of a hash
};

}  // namespace gpufl::py
