// Host waits on the GPU (sync_event records, recorded with InitOptions::enable_sync_events): counts
// and time per kind (stream, event, device synchronize; stream waits on events) and the scopes that
// waited longest.
#pragma once

#include <array>
#include <cstdint>
#include <map>

#include "core/events.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

class SyncAggregator {
 public:
  static constexpr size_t kTopScopes = 5;

  // Remembers whether the session asked for sync events (its options), so "none" can be told from
  // "not recorded".
  void onSessionStart(const SessionStart& s);
  void onSync(const SyncEvent& e);
  void finish(SyncSummary& out) const;

 private:
  static constexpr size_t kKinds = 5;  // SyncKind values
  bool enabled_ = false;
  std::array<SyncStats, kKinds> kinds_{};
  std::map<uint32_t, SyncScopeStats> scopes_;
};

}  // namespace gpufl::report
