#include "prefix_arg.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

// <prefix>.<channel>[.NNNNNN].log[.zst] (docs/log-format.md: rotation numbers the segments).
const std::regex& channelFile() {
  static const std::regex re(R"(^(.+)\.(device|scope|system)(\.[0-9]{6})?\.log(\.zst)?$)");
  return re;
}

std::string joinListed(const std::vector<std::string>& names, size_t most) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < most; ++i) s += "\n  " + names[i];
  if (names.size() > most) s += "\n  ... and " + std::to_string(names.size() - most) + " more";
  return s;
}

}  // namespace

std::vector<std::string> prefixesIn(const std::string& dir) {
  std::set<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::smatch m;
    const std::string name = it->path().filename().string();
    if (std::regex_match(name, m, channelFile()))
      found.insert((fs::path(dir) / m[1].str()).string());
  }
  return {found.begin(), found.end()};
}

std::string missingLogsMessage(const std::string& prefix) {
  std::string s = "no GPU Flight logs at '" + prefix + "' (looked for " + prefix + ".device.log, " +
                  prefix + ".scope.log, " + prefix + ".system.log)";
  const std::string dir = fs::path(prefix).parent_path().string();
  std::vector<std::string> beside = prefixesIn(dir);
  if (!beside.empty())
    s += "; logs in '" + (dir.empty() ? "." : dir) + "':" + joinListed(beside, 10);
  return s;
}

PrefixArg resolvePrefix(const std::string& given) {
  std::error_code ec;
  if (!given.empty() && fs::is_directory(given, ec)) {
    std::vector<std::string> prefixes = prefixesIn(given);
    if (prefixes.size() == 1) return {prefixes.front(), ""};
    if (prefixes.empty()) return {"", "no GPU Flight logs in directory '" + given + "'"};
    return {"", "'" + given + "' holds logs of " + std::to_string(prefixes.size()) +
                    " prefixes; name one:" + joinListed(prefixes, 20)};
  }
  std::smatch m;
  const std::string name = fs::path(given).filename().string();
  if (std::regex_match(name, m, channelFile()) && fs::exists(given, ec))
    return {(fs::path(given).parent_path() / m[1].str()).string(), ""};
  return {given, ""};
}

}  // namespace gpufl::cli
