#include "host/thread_usage.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "host/proc_parse.hpp"

namespace gpufl::host {
namespace {

std::string joined(const std::string& root, std::string_view relative) {
  std::string path = root;
  if (path.empty() || path.back() != '/') path += '/';
  path += relative;
  return path;
}

// /proc files report size 0: read until EOF.
std::optional<std::string> readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

std::vector<ThreadUsage> readThreadUsage(
    const std::string& root, const std::function<bool(int64_t tid, std::string_view name)>& want,
    long ticks_per_sec) {
  if (ticks_per_sec <= 0) ticks_per_sec = sysconf(_SC_CLK_TCK);
  if (ticks_per_sec <= 0) ticks_per_sec = 100;  // USER_HZ on every supported architecture
  std::vector<ThreadUsage> out;
  const std::string tasks = joined(root, "proc/self/task");
  DIR* dir = opendir(tasks.c_str());
  if (dir == nullptr) return out;
  while (const dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long long tid = std::strtoll(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || tid <= 0) continue;  // ".", "..", anything else
    const std::string base = tasks + "/" + e->d_name + "/";
    std::optional<std::string> comm = readText(base + "comm");
    if (!comm) continue;  // exited meanwhile
    while (!comm->empty() && (comm->back() == '\n' || comm->back() == '\r')) comm->pop_back();
    if (want && !want(tid, *comm)) continue;
    const std::optional<std::string> stat = readText(base + "stat");
    const std::optional<uint64_t> ticks = stat ? parseProcessCpuTicks(*stat) : std::nullopt;
    if (!ticks) continue;
    out.push_back({tid, std::move(*comm),
                   *ticks * (1'000'000'000ull / static_cast<uint64_t>(ticks_per_sec))});
  }
  closedir(dir);
  return out;
}

std::optional<uint64_t> readResidentBytes(const std::string& root) {
  const std::optional<std::string> text = readText(joined(root, "proc/self/status"));
  return text ? parseVmRssBytes(*text) : std::nullopt;
}

}  // namespace gpufl::host
