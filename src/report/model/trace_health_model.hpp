// What the report says about the trace itself (section "Trace Health", docs/trace-health.md):
// whether the records above can be trusted, from what gpufl checked as it wrote them (its health
// records), what it lost (session_end's drops), what the reader found, and what gpufl cost. Plain
// data, filled by TraceHealthAggregator (aggregate/trace_health.hpp) and read by the section's text
// and JSON renderers; its JSON keys are the table below.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/events.hpp"

namespace gpufl::report {

// One thing wrong with the trace: what, how much, since when, and what it means for the figures
// above it.
struct TraceHealthIssue {
  // A check's violation kind ("zero_time", "reversed", ...: core/trace_checks.hpp), "dropped.<key>"
  // (session_end's drops), "invalid_as_read", "session_end", "reader", "step_down".
  std::string kind;
  uint64_t count = 0;
  std::optional<int64_t> since_ns;  // session clock: when first seen; unset when the log cannot say
  std::string what;                 // what was found, one line
  std::string meaning;              // what it means for the report's figures
};

struct TraceHealth {
  bool healthy = true;
  uint64_t health_records = 0;  // 0: the log was written before gpufl checked its records
  uint64_t checked = 0;         // records gpufl checked as it wrote them
  uint64_t read = 0;            // kernel and copy records the report read
  uint64_t invalid_read = 0;    // of those, with a zero time or ending before they start
  std::vector<TraceHealthIssue> issues;
  // gpufl's own cost, from the health records.
  std::map<std::string, uint64_t> cpu_ns;   // by thread role, over the session
  double cpu_pct = 0;                       // gpufl's threads over the session, % of one core
  double cpu_pct_max = 0;                   // the costliest health period
  uint64_t buffer_bytes_max = 0;            // the most gpufl's buffers held
  std::optional<int64_t> rss_growth_bytes;  // the process's, from the first to the last record
  std::string clock_mode;
  std::optional<int64_t> clock_drift_ns, clock_correction_ns;
  uint64_t cupti_version = 0;
  std::vector<std::string> cupti_issues;
  std::vector<std::string> step_down;
  std::vector<HealthExample> examples;  // the first few of each violation kind
};

// The JSON keys of the section (json/model_json.hpp says how to read a row; the writer is made in
// sections/trace_health.cpp).
// clang-format off
#define GFL_REPORT_JSON_TraceHealthIssue(F, K, N, L)                                              \
  F(kind, kPlain) F(count, kPlain) F(since_ns, kPlain) F(what, kPlain) F(meaning, kPlain)
#define GFL_REPORT_JSON_HealthExample(F, K, N, L) L()
#define GFL_REPORT_JSON_TraceHealth(F, K, N, L)                                                   \
  F(healthy, kPlain) F(health_records, kPlain) F(checked, kPlain) F(read, kPlain)                 \
  F(invalid_read, kPlain) F(issues, kPlain) F(cpu_ns, kPlain) F(cpu_pct, kDec3)                   \
  F(cpu_pct_max, kDec3) F(buffer_bytes_max, kPlain) F(rss_growth_bytes, kPlain)                   \
  F(clock_mode, kPlain) F(clock_drift_ns, kPlain) F(clock_correction_ns, kPlain)                  \
  F(cupti_version, kPlain) F(cupti_issues, kPlain) F(step_down, kPlain) F(examples, kPlain)
// clang-format on

}  // namespace gpufl::report
