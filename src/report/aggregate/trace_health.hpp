// The Trace Health section's aggregation (model/trace_health_model.hpp): the session's health
// records (what gpufl's checks found as it wrote the records, what it cost, what it gave up), the
// reader's own checks of every kernel and copy it reads (a zero time, an end before the start:
// what a log written before the checks existed can still be judged on), and, at finish, the
// session's drops, its end and the reader's warnings, each turned into an issue with what it means
// for the figures above it. Driven by ReportBuilder like the incidents; nothing grows with the
// number of records (the latest health record and a few counters are kept).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/events.hpp"
#include "report/model/trace_health_model.hpp"

namespace gpufl::report {

struct Report;

class TraceHealthAggregator {
 public:
  void onHealth(const Health& e);
  void onKernel(const KernelEvent& e) { readTimes(e.start_ns, e.end_ns); }
  void onMemcpy(const MemcpyEvent& e) { readTimes(e.start_ns, e.end_ns); }
  // After the shared model is built: reads its session, drops, reader warnings and incidents.
  void finish(Report& r) const;

 private:
  void readTimes(int64_t start_ns, int64_t end_ns) {
    ++read_;
    if (start_ns <= 0 || end_ns <= 0 || end_ns < start_ns) ++invalid_read_;
  }

  uint64_t read_ = 0, invalid_read_ = 0;
  uint64_t health_records_ = 0;
  Health last_;  // the latest by ts_ns
  double cpu_pct_max_ = 0;
  uint64_t buffer_bytes_max_ = 0;
  int64_t first_rss_ = -1;
  std::map<std::string, int64_t> drop_since_;  // the first health record with that drop above 0
  int64_t step_down_since_ = 0;                // the first with anything given up
};

}  // namespace gpufl::report
