#include "report/aggregate/scope_stats.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "core/checked_math.hpp"
namespace gpufl::report {

ScopeAggregator::PathAcc& ScopeAggregator::path(uint32_t id) {
  PathAcc& p = paths_[id];
  if (p.name.empty()) p.name = "(scope " + std::to_string(id) + ")";
  return p;
}

void ScopeAggregator::onPath(const ScopePath& sp) {
  if (sp.id == 0) return;
  PathAcc& p = paths_[sp.id];
  p.parent = sp.parent == sp.id ? 0 : sp.parent;
  p.name = sp.name.empty() ? "(unnamed)" : sp.name;
  p.defined = true;
}

void ScopeAggregator::onBegin(const ScopeBegin& b) {
  PathAcc& p = path(b.path);
  if (!p.defined && !b.name.empty()) p.name = b.name;
  open_[b.id] = Open{b.path, b.ts_ns};
}

void ScopeAggregator::onEnd(const ScopeEnd& e) {
  auto it = open_.find(e.id);
  if (it == open_.end()) {
    ++unmatched_ends_;
    return;
  }
  PathAcc& p = path(it->second.path);
  const int64_t dur = spanNs(it->second.ts_ns, e.ts_ns);
  ++p.calls;
  p.total_ns = satAdd(p.total_ns, dur);
  p.max_ns = std::max(p.max_ns, dur);
  open_.erase(it);
}

void ScopeAggregator::onKernel(uint32_t id, int64_t dur_ns) {
  if (id == 0) {
    ++kernels_outside_;
    gpu_outside_ns_ = satAdd(gpu_outside_ns_, dur_ns);
    return;
  }
  PathAcc& p = path(id);
  ++p.kernels;
  p.gpu_ns = satAdd(p.gpu_ns, dur_ns);
}

void ScopeAggregator::onCopy(uint32_t id, uint64_t bytes) {
  if (id == 0) return;
  PathAcc& p = path(id);
  ++p.copies;
  p.copy_bytes += bytes;
}

void ScopeAggregator::finish(ScopeSummary& out) const {
  out = ScopeSummary{};
  out.unmatched_ends = unmatched_ends_;
  out.kernels_outside = kernels_outside_;
  out.gpu_outside_ns = gpu_outside_ns_;
  std::map<uint32_t, uint64_t> unfinished;
  for (const auto& [id, open] : open_) ++unfinished[open.path];
  out.unfinished = open_.size();

  // Children by parent, siblings in path id order (the order paths were first entered).
  std::map<uint32_t, std::vector<uint32_t>> children;
  std::vector<uint32_t> roots;
  for (const auto& [id, p] : paths_) {
    if (p.parent != 0 && paths_.count(p.parent)) {
      children[p.parent].push_back(id);
    } else {
      roots.push_back(id);
    }
  }
  std::set<uint32_t> visited;  // a malformed log could make a cycle
  std::function<size_t(uint32_t, int)> visit = [&](uint32_t id, int depth) -> size_t {
    const PathAcc& p = paths_.at(id);
    size_t index = out.rows.size();
    ScopeRow row;
    row.path = id;
    row.parent = p.parent;
    row.name = p.name;
    row.depth = depth;
    row.calls = p.calls;
    row.unfinished = unfinished.count(id) ? unfinished[id] : 0;
    row.total_ns = p.total_ns;
    row.max_ns = p.max_ns;
    row.kernels_self = row.kernels_incl = p.kernels;
    row.gpu_self_ns = row.gpu_incl_ns = p.gpu_ns;
    row.copies_self = row.copies_incl = p.copies;
    row.copy_bytes_self = row.copy_bytes_incl = p.copy_bytes;
    out.rows.push_back(row);
    if (auto c = children.find(id); c != children.end()) {
      for (uint32_t child : c->second) {
        if (!visited.insert(child).second) continue;
        size_t ci = visit(child, depth + 1);
        out.rows[index].kernels_incl += out.rows[ci].kernels_incl;
        out.rows[index].gpu_incl_ns = satAdd(out.rows[index].gpu_incl_ns, out.rows[ci].gpu_incl_ns);
        out.rows[index].copies_incl += out.rows[ci].copies_incl;
        out.rows[index].copy_bytes_incl += out.rows[ci].copy_bytes_incl;
      }
    }
    return index;
  };
  for (uint32_t root : roots) {
    if (visited.insert(root).second) visit(root, 0);
  }
  for (const auto& [id, p] : paths_) {  // members of a parent cycle, shown at top level
    if (visited.insert(id).second) visit(id, 0);
  }
}

}  // namespace gpufl::report
