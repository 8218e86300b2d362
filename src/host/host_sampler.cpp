#include "host/host_sampler.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace gpufl::host {

HostSampler::HostSampler(std::string root, long clock_ticks_per_sec)
    : root_(std::move(root)),
      ticks_per_sec_(clock_ticks_per_sec > 0 ? clock_ticks_per_sec : sysconf(_SC_CLK_TCK)) {
  if (ticks_per_sec_ <= 0)
    ticks_per_sec_ = 100;  // the Linux USER_HZ on every supported architecture
}

void HostSampler::setRoot(std::string root) {
  root_ = std::move(root);
}

std::optional<std::string> HostSampler::readFile(const std::string& relative,
                                                 std::string* error) const {
  std::string path = root_;
  if (path.empty() || path.back() != '/') path += '/';
  path += relative;
  // /proc files report size 0: read until EOF rather than by size.
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "/" + relative + ": " + std::strerror(errno ? errno : ENOENT);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void HostSampler::fail(const std::string& field, std::string reason) {
  if (failing_.insert(field).second) new_issues_.push_back({field, std::move(reason)});
}

void HostSampler::ok(const std::string& field) {
  failing_.erase(field);
}

HostSample HostSampler::sample(int64_t ts_ns) {
  HostSample s;
  s.ts_ns = ts_ns;
  std::string error;

  if (auto text = readFile("proc/stat", &error)) {
    if (auto cpu = parseProcStat(*text)) {
      ok("cpu");
      if (last_cpu_) s.cpu_pct = cpuBusyPercent(*last_cpu_, *cpu);
      last_cpu_ = cpu;
    } else {
      fail("cpu", "/proc/stat: no parsable aggregate \"cpu\" line");
    }
  } else {
    fail("cpu", error);
  }

  if (auto text = readFile("proc/meminfo", &error)) {
    if (auto mem = parseMeminfo(*text)) {
      ok("memory");
      s.ram_total_bytes = mem->total_bytes;
      s.ram_used_bytes = mem->usedBytes();
    } else {
      fail("memory", "/proc/meminfo: no parsable MemTotal/MemAvailable lines");
    }
  } else {
    fail("memory", error);
  }

  if (auto text = readFile("proc/self/stat", &error)) {
    if (auto ticks = parseProcessCpuTicks(*text)) {
      ok("process_cpu");
      if (last_proc_ticks_ && *ticks >= *last_proc_ticks_ && ts_ns > last_proc_ts_ns_) {
        double cpu_s =
            static_cast<double>(*ticks - *last_proc_ticks_) / static_cast<double>(ticks_per_sec_);
        double wall_s = static_cast<double>(ts_ns - last_proc_ts_ns_) * 1e-9;
        s.proc_cpu_pct = cpu_s / wall_s * 100.0;
      }
      last_proc_ticks_ = ticks;
      last_proc_ts_ns_ = ts_ns;
    } else {
      fail("process_cpu", "/proc/self/stat: utime/stime not found");
    }
  } else {
    fail("process_cpu", error);
  }

  if (auto text = readFile("proc/self/status", &error)) {
    if (auto rss = parseVmRssBytes(*text)) {
      ok("process_rss");
      s.proc_rss_bytes = rss;
    } else {
      fail("process_rss", "/proc/self/status: no parsable VmRSS line");
    }
  } else {
    fail("process_rss", error);
  }
  return s;
}

std::vector<HostIssue> HostSampler::takeNewIssues() {
  return std::exchange(new_issues_, {});
}

}  // namespace gpufl::host
