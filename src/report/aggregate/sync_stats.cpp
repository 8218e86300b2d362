#include "report/aggregate/sync_stats.hpp"

#include <algorithm>

#include "core/checked_math.hpp"
namespace gpufl::report {

void SyncAggregator::onSessionStart(const SessionStart& s) {
  auto it = s.options.find("enable_sync_events");
  enabled_ = enabled_ || (it != s.options.end() && it->second == "true");
}

void SyncAggregator::onSync(const SyncEvent& e) {
  const int64_t ns = spanNs(e.start_ns, e.end_ns);
  SyncStats& k = kinds_[static_cast<size_t>(e.kind)];
  ++k.count;
  k.total_ns = satAdd(k.total_ns, ns);
  k.max_ns = std::max(k.max_ns, ns);
  SyncScopeStats& s = scopes_[e.scope_path];
  s.path = e.scope_path;
  ++s.count;
  s.total_ns = satAdd(s.total_ns, ns);
}

void SyncAggregator::finish(SyncSummary& out) const {
  out.enabled = enabled_;
  for (size_t i = 0; i < kKinds; ++i) {
    if (kinds_[i].count == 0) continue;
    SyncStats k = kinds_[i];
    k.kind = syncKindName(static_cast<SyncKind>(i));
    out.count += k.count;
    out.total_ns = satAdd(out.total_ns, k.total_ns);
    out.kinds.push_back(std::move(k));
  }
  const auto by_time = [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; };
  std::stable_sort(out.kinds.begin(), out.kinds.end(), by_time);
  for (const auto& [path, s] : scopes_) out.scopes.push_back(s);
  std::stable_sort(out.scopes.begin(), out.scopes.end(), by_time);
  if (out.scopes.size() > kTopScopes) out.scopes.resize(kTopScopes);
}

}  // namespace gpufl::report
