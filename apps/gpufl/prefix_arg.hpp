// The PREFIX argument of `report`, `cat` and `sessions`, taken the ways a user gives it: the
// log_path prefix itself (./smoke_test), one of its channel files (smoke_test.device.log, a
// segment smoke_test.scope.000002.log.zst), or a directory that holds logs (picked when it holds
// one prefix; listed when it holds several).
#pragma once

#include <string>
#include <vector>

namespace gpufl::cli {

struct PrefixArg {
  std::string prefix;  // what to read; empty when `error` says why there is nothing to read
  std::string error;   // one line (and an indented list), for "gpufl CMD: <error>"
};

PrefixArg resolvePrefix(const std::string& given);

// The log prefixes with at least one channel file in `dir` (dir/name), sorted.
std::vector<std::string> prefixesIn(const std::string& dir);

// "no GPU Flight logs at 'x' (looked for x.device.log, ...)", plus the prefixes beside it when the
// directory has some (a typo in the name is the likely cause).
std::string missingLogsMessage(const std::string& prefix);

}  // namespace gpufl::cli
