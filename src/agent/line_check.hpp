// What the agent needs to know of one log line before shipping it: is it a whole JSON object with a
// `type` and a `sid` (docs/log-format.md), and does it end a session. A line that is not is skipped
// and counted, never shipped: a receiver must be able to parse every line of a batch.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace gpufl::agent {

struct LineInfo {
  bool ok = false;
  bool session_end = false;
  std::string sid;       // set when ok and the record is a session_end
  const char* why = "";  // set when !ok
};

class LineChecker {
 public:
  LineChecker();
  ~LineChecker();
  LineChecker(const LineChecker&) = delete;
  LineChecker& operator=(const LineChecker&) = delete;

  // `text` must be followed by at least 64 readable bytes (log::kLinePadding): it is parsed in
  // place.
  LineInfo check(std::string_view text);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// FNV-1a, 64 bits: stable across runs and machines (file identities, idempotency keys).
uint64_t fnv1a64(std::string_view data, uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace gpufl::agent
