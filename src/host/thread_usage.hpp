// The threads of this process with the CPU time each has used (/proc/self/task/<tid>/comm and
// stat), and the process's resident memory (/proc/self/status): how gpufl measures its own cost
// (runtime/health_reporter.hpp). `root` is prepended to the /proc paths ("/" for the real system;
// tests use fixture trees). A thread that exits while the directory is read is skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpufl::host {

struct ThreadUsage {
  int64_t tid = 0;
  std::string name;     // comm: at most 15 characters, as pthread_setname_np set it
  uint64_t cpu_ns = 0;  // utime + stime (clock-tick resolution: 10 ms at USER_HZ 100)
};

// Every thread `want(tid, name)` accepts (all when `want` is empty), in no particular order; the
// stat file is read only for those. ticks_per_sec 0: sysconf(_SC_CLK_TCK).
std::vector<ThreadUsage> readThreadUsage(
    const std::string& root = "/",
    const std::function<bool(int64_t tid, std::string_view name)>& want = {},
    long ticks_per_sec = 0);

// VmRSS of /proc/self/status in bytes; nullopt when it cannot be read.
std::optional<uint64_t> readResidentBytes(const std::string& root = "/");

}  // namespace gpufl::host
