#include "report/aggregate/memory_stats.hpp"

#include <algorithm>

namespace gpufl::report {

void MemoryAggregator::onSessionStart(const SessionStart& s) {
  auto it = s.options.find("enable_memory_events");
  enabled_ = enabled_ || (it != s.options.end() && it->second == "true");
}

void MemoryAggregator::onMemory(const MemoryEvent& e) {
  MemoryKindStats& k = kinds_[e.memory_kind.empty() ? "unknown" : e.memory_kind];
  const auto key = std::make_pair(e.device, e.address);
  if (e.is_free) {
    ++k.frees;
    ++sum_.frees;
    if (auto it = live_.find(key); it != live_.end()) {
      in_use_ -= it->second;
      live_.erase(it);
    }
    return;
  }
  ++k.allocs;
  k.bytes += e.bytes;
  k.largest = std::max(k.largest, e.bytes);
  ++sum_.allocs;
  sum_.bytes += e.bytes;
  if (auto [it, inserted] = live_.try_emplace(key, e.bytes); !inserted) {
    in_use_ -= it->second;  // an address reused without its release seen: the latest size counts
    it->second = e.bytes;
  }
  in_use_ += e.bytes;
  if (in_use_ > sum_.peak_in_use) {
    sum_.peak_in_use = in_use_;
    sum_.peak_ts_ns = e.ts_ns;
  }
  MemoryScopeStats& s = scopes_[e.scope_path];
  s.path = e.scope_path;
  ++s.allocs;
  s.bytes += e.bytes;
}

void MemoryAggregator::finish(MemorySummary& out) const {
  out = sum_;
  out.enabled = enabled_;
  out.in_use_at_end = in_use_;
  for (const auto& [name, k] : kinds_) {
    out.kinds.push_back(k);
    out.kinds.back().kind = name;
  }
  std::stable_sort(out.kinds.begin(), out.kinds.end(),
                   [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  for (const auto& [path, s] : scopes_) out.scopes.push_back(s);
  std::stable_sort(out.scopes.begin(), out.scopes.end(),
                   [](const auto& a, const auto& b) { return a.allocs > b.allocs; });
  if (out.scopes.size() > kTopScopes) out.scopes.resize(kTopScopes);
}

}  // namespace gpufl::report
