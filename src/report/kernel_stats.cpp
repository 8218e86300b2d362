#include "report/kernel_stats.hpp"

#include <algorithm>
#include <set>

#include "core/checked_math.hpp"
namespace gpufl::report {

KernelAggregator::KernelAggregator(size_t exact_limit, SampleBudget* budget)
    : exact_limit_(exact_limit),
      budget_(budget),
      all_(exact_limit, budget),
      clean_(exact_limit, budget) {}

size_t KernelAggregator::groupFor(const KernelDef& def) {
  const std::string& name = def.demangled.empty() ? def.name : def.demangled;
  GroupKey key{name, def.grid.x, def.grid.y, def.grid.z, def.block.x, def.block.y, def.block.z};
  auto [it, inserted] = group_index_.try_emplace(key, groups_.size());
  if (inserted) {
    Group g{def,
            true,
            0,
            0,
            DurationStats(exact_limit_, budget_),
            DurationStats(0, nullptr),
            CoarseIntervals{}};
    groups_.push_back(std::move(g));
  }
  ++groups_[it->second].defs;
  return it->second;
}

uint32_t KernelAggregator::groupOfDef(uint32_t id) const {
  if (id < kDenseIds) return id < dense_def_group_.size() ? dense_def_group_[id] : kNoGroup;
  const auto it = sparse_def_group_.find(id);
  return it == sparse_def_group_.end() ? kNoGroup : it->second;
}

// Group indices fit 32 bits: each group needs a kernel_def line or a kernel event of its own.
void KernelAggregator::setGroupOfDef(uint32_t id, size_t group) {
  if (id >= kDenseIds) {
    sparse_def_group_[id] = static_cast<uint32_t>(group);
    return;
  }
  if (id >= dense_def_group_.size())
    dense_def_group_.resize(std::max<size_t>(id + 1, dense_def_group_.size() * 2), kNoGroup);
  dense_def_group_[id] = static_cast<uint32_t>(group);
}

void KernelAggregator::onDef(const KernelDef& def) {
  if (groupOfDef(def.id) != kNoGroup)
    return;  // a repeated definition (e.g. in a later segment) changes nothing
  setGroupOfDef(def.id, groupFor(def));
  if (!def.name.empty())
    readable_.try_emplace(def.name, def.demangled.empty() ? def.name : def.demangled);
}

void KernelAggregator::onKernel(const KernelEvent& e) {
  uint32_t group = groupOfDef(e.def_id);
  if (group == kNoGroup) {
    ++undefined_refs_;
    // Named so that it cannot pass for a function (readable-name rules leave "<...>" alone); its
    // launch shape is unknown, not the default (1,1,1).
    KernelDef unknown;
    unknown.id = e.def_id;
    unknown.name = unknown.demangled = "<unknown kernel def " + std::to_string(e.def_id) + ">";
    group = static_cast<uint32_t>(groupFor(unknown));
    setGroupOfDef(e.def_id, group);
    groups_[group].defined = false;
  }
  const int64_t dur = spanNs(e.start_ns, e.end_ns);
  Group& g = groups_[group];
  g.durations.add(dur);
  all_.add(dur);
  if (e.instrumented) {
    ++g.instrumented;
    ++instrumented_;
  } else {
    clean_.add(dur);
    g.clean.add(dur);
  }
  g.intervals.add(e.start_ns, satAdd(e.start_ns, dur));
  busy_.add(e.start_ns, satAdd(e.start_ns, dur));
}

void KernelAggregator::finish(int64_t session_ns, KernelSummary& out, const GpuSampleLog* samples) {
  out = KernelSummary{};
  out.all = all_.summary();
  out.clean = clean_.summary();
  out.launches = out.all.count;
  out.total_ns = out.all.total_ns;
  out.instrumented = instrumented_;
  out.undefined_refs = undefined_refs_;
  out.busy_ns = busy_.coveredNs();
  out.busy_clipped = busy_.clipped();
  if (session_ns > 0)
    out.busy_pct =
        std::min(100.0, 100.0 * static_cast<double>(out.busy_ns) / static_cast<double>(session_ns));
  std::set<std::string> names;
  std::vector<size_t> order;  // launched groups, by total time
  for (size_t i = 0; i < groups_.size(); ++i)
    if (groups_[i].durations.count() > 0) order.push_back(i);
  std::vector<DurationSummary> sums(groups_.size());
  for (size_t i : order) sums[i] = groups_[i].durations.summary();
  std::stable_sort(order.begin(), order.end(), [&sums](size_t a, size_t b) {
    if (sums[a].total_ns != sums[b].total_ns) return sums[a].total_ns > sums[b].total_ns;
    return sums[a].count > sums[b].count;
  });
  out.groups.reserve(order.size());
  for (size_t i : order) {
    Group& g = groups_[i];
    names.insert(g.name());
    KernelGroup kg;
    kg.name = g.name();
    kg.mangled = g.def.name;
    kg.grid = g.def.grid;
    kg.block = g.def.block;
    kg.defined = g.defined;
    kg.def = g.def;
    kg.defs = g.defs;
    kg.instrumented = g.instrumented;
    kg.durations = sums[i];
    kg.clean = g.clean.summary();
    if (samples && out.groups.size() < kCardGroups)
      kg.clocks =
          samples->window(g.def.device, g.intervals.intervals(), g.intervals.resolutionNs());
    out.groups.push_back(std::move(kg));
  }
  out.unique_functions = names.size();
}

}  // namespace gpufl::report
