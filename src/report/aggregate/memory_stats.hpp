// Memory allocations and releases (memory_event records, recorded with
// InitOptions::enable_memory_events): counts and bytes per memory kind, the peak of bytes in use
// (allocations not yet released, followed by device and address in the order the log holds them:
// CUPTI delivers them in time order per context), and the scopes that allocated most often (a
// cudaMalloc per step is the classic slowdown). Memory grows with the allocations outstanding, not
// with the number of records.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "core/events.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

class MemoryAggregator {
 public:
  static constexpr size_t kTopScopes = 5;

  void onSessionStart(const SessionStart& s);  // whether the session asked for memory events
  void onMemory(const MemoryEvent& e);
  void finish(MemorySummary& out) const;

 private:
  bool enabled_ = false;
  MemorySummary sum_;  // counts, bytes and the peak so far
  uint64_t in_use_ = 0;
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> live_;  // (device, address) -> bytes
  std::map<std::string, MemoryKindStats> kinds_;
  std::map<uint32_t, MemoryScopeStats> scopes_;
};

}  // namespace gpufl::report
