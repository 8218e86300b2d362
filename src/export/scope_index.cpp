#include "export/scope_index.hpp"

#include <algorithm>

namespace gpufl::exporter {

void ScopeIndex::onScopeBegin(const ScopeBegin& b) {
  by_path_[b.path].push_back({b.ts_ns, b.id, b.tid});
}

void ScopeIndex::seal() {
  for (auto& [path, v] : by_path_) {
    std::stable_sort(v.begin(), v.end(), [](const ScopeInstance& a, const ScopeInstance& b) {
      return a.begin_ns < b.begin_ns;
    });
    v.shrink_to_fit();
  }
}

const ScopeInstance* ScopeIndex::find(uint32_t path, int64_t ts_ns) const {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return nullptr;
  const auto& v = it->second;
  auto after = std::upper_bound(v.begin(), v.end(), ts_ns,
                                [](int64_t t, const ScopeInstance& s) { return t < s.begin_ns; });
  if (after == v.begin()) return nullptr;
  return &*(after - 1);
}

}  // namespace gpufl::exporter
