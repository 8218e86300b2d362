// Parsers for the few /proc files the host sampler reads. Pure functions of the file text: a
// malformed or truncated file gives std::nullopt, never an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpufl::host {

// Aggregate CPU time from the first ("cpu ") line of /proc/stat, in clock ticks.
struct CpuTimes {
  uint64_t total =
      0;  // user+nice+system+idle+iowait+irq+softirq+steal (guest time is already inside user/nice)
  uint64_t idle = 0;  // idle+iowait
};
std::optional<CpuTimes> parseProcStat(std::string_view text);

// Busy share of the CPU time between two /proc/stat readings, 0..100; nullopt when no time passed
// or the counters went backwards.
std::optional<double> cpuBusyPercent(const CpuTimes& before, const CpuTimes& after);

struct MemInfo {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;  // MemAvailable, or MemFree+Buffers+Cached on kernels without it
  uint64_t usedBytes() const {
    return total_bytes > available_bytes ? total_bytes - available_bytes : 0;
  }
};
std::optional<MemInfo> parseMeminfo(std::string_view text);

// utime+stime of /proc/<pid>/stat (fields 14 and 15), in clock ticks. The command name may contain
// spaces and parentheses; fields are counted after its last ')'.
std::optional<uint64_t> parseProcessCpuTicks(std::string_view text);

// VmRSS of /proc/<pid>/status, in bytes.
std::optional<uint64_t> parseVmRssBytes(std::string_view text);

}  // namespace gpufl::host
