// Host CPU and memory, read from /proc: whole-machine CPU busy % and RAM (/proc/stat,
// /proc/meminfo), and this process's CPU % and RSS (/proc/self/stat, /proc/self/status).
//
// CPU percentages are rates, so they come from the difference between two samples: the first sample
// after construction (or after setRoot) has no cpu_pct/proc_cpu_pct. proc_cpu_pct follows top's
// convention: 100 means one core fully busy, so a multi-threaded process can exceed 100.
//
// Not thread-safe: one sampler thread calls sample() (see periodic_sampler.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "host/proc_parse.hpp"

namespace gpufl::host {

// A field the sampler could not read, reported once per field until the field is read successfully
// again.
struct HostIssue {
  std::string field;   // "cpu", "memory", "process_cpu", "process_rss"
  std::string reason;  // e.g. "/proc/meminfo: no MemTotal line"
};

class HostSampler {
 public:
  // `root` is prepended to /proc paths ("/" for the real system; tests use fixture trees under
  // tests/data/proc). clock_ticks_per_sec <= 0 means sysconf(_SC_CLK_TCK).
  explicit HostSampler(std::string root = "/", long clock_ticks_per_sec = 0);

  // Reads every file once. Fields that cannot be read are left empty and recorded as issues.
  HostSample sample(int64_t ts_ns);

  // Issues found since the previous call, each field at most once until it recovers.
  std::vector<HostIssue> takeNewIssues();

  // Switches the tree read by later samples, keeping the previous counters (tests feed two
  // snapshots this way).
  void setRoot(std::string root);
  const std::string& root() const { return root_; }

 private:
  std::optional<std::string> readFile(const std::string& relative, std::string* error) const;
  void fail(const std::string& field, std::string reason);
  void ok(const std::string& field);

  std::string root_;
  long ticks_per_sec_;
  std::optional<CpuTimes> last_cpu_;
  std::optional<uint64_t> last_proc_ticks_;
  int64_t last_proc_ts_ns_ = 0;
  std::set<std::string> failing_;  // fields whose failure was already reported
  std::vector<HostIssue> new_issues_;
};

}  // namespace gpufl::host
