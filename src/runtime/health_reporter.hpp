// gpufl's own cost over time, for the `health` record the session writes every health_period_s and
// once more before session_end (docs/trace-health.md):
// - CPU time by role of gpufl's own threads, found by name ("gpufl-writer", "gpufl-sampler",
//   "gpufl-zstd", "gpufl-watchdog": /proc/self/task) and by the thread ids collectors name (CUPTI's
//   buffer thread), summed over the session even when a thread has exited; their share of one core
//   over the period;
// - the process's resident memory and its growth since the session began (the program's growth is
//   in it too: buffer_bytes is gpufl's own part);
// - records written per second over the period;
// - and, on that cost, the step-down decision (core/step_down.hpp) when the user set limits.
// The collectors add their own parts (Collector::health); Session::writeHealth puts it together.
//
// [writer thread] (the last record on the stopping thread, after the writer thread was joined).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/collector.hpp"
#include "core/events.hpp"
#include "core/step_down.hpp"

namespace gpufl::runtime {

struct HealthConfig {
  int64_t period_ns = 30'000'000'000;  // 0: only the record at the end
  core::StepDownLimits limits;
  std::string proc_root = "/";  // tests: a fixture tree
};

// The role a gpufl thread's name gives ("gpufl-writer" -> "writer", "gpufl-zstd" -> "compressor",
// "gpufl-x" -> "x"), or "" for a thread that is not gpufl's.
std::string threadRole(std::string_view name);

class HealthReporter {
 public:
  explicit HealthReporter(HealthConfig config);

  // At the session's start, after the collectors started: the baseline of resident memory and the
  // first period's start.
  void begin(int64_t now_ns);
  bool due(int64_t now_ns) const {
    return config_.period_ns > 0 && now_ns - last_ns_ >= config_.period_ns;
  }

  // The process-wide part of a record taken at `now_ns`: period, cpu_ns by role and cpu_pct,
  // rss_bytes and rss_growth_bytes, records and records_per_s. `records`: written so far;
  // `writer_cpu_ns`: the writer thread's own CPU measure, which outlives the thread (0: read it
  // from /proc like the others); `threads`: (tid, role) pairs the collectors named. A role the
  // collectors already put in health.cpu_ns (their own measure of a thread) keeps the larger value.
  void measure(Health& health, int64_t now_ns, uint64_t records, uint64_t writer_cpu_ns,
               const std::vector<core::Collector::ThreadRole>& threads);

  // The ladder's decision on the cost of the record just measured (None without limits, or when not
  // `observe`: the last record only says what was given up); adds what has been given up so far,
  // this decision included, to health.step_down.
  core::StepDecision decide(Health& health, bool observe = true);
  const core::StepDown& steps() const { return steps_; }

 private:
  HealthConfig config_;
  core::StepDown steps_;
  int64_t start_ns_ = 0, last_ns_ = 0;
  uint64_t rss0_ = 0;
  uint64_t last_cpu_ns_ = 0, last_records_ = 0;
  std::map<int64_t, std::pair<std::string, uint64_t>> seen_;  // tid -> role, its CPU when last read
  std::map<std::string, uint64_t> role_ns_;                   // summed over the session
};

}  // namespace gpufl::runtime
