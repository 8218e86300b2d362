#include "report/kernel_stats.hpp"

#include <algorithm>
#include <functional>
#include <string_view>
#include <tuple>
#include <unordered_set>

#include "core/checked_math.hpp"
#ifdef __GLIBC__
#include <malloc.h>
#endif
namespace gpufl::report {
namespace {

size_t shapeHash(const std::string& name, const Dim3& grid, const Dim3& block) {
  size_t h = std::hash<std::string_view>{}(name);
  for (const uint32_t v : {grid.x, grid.y, grid.z, block.x, block.y, block.z})
    h = (h ^ v) * 0x100000001b3ull;  // FNV-1a style mixing of the shape
  return h;
}

bool sameDim(const Dim3& a, const Dim3& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

}  // namespace

KernelAggregator::KernelAggregator(size_t exact_limit, SampleBudget* budget)
    : exact_limit_(exact_limit),
      budget_(budget),
      all_(exact_limit, budget),
      clean_(exact_limit, budget) {}

uint32_t KernelAggregator::hashOf(const std::string& name, const Dim3& grid, const Dim3& block) {
  const size_t h = shapeHash(name, grid, block);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

size_t KernelAggregator::slotOf(uint32_t hash, const std::string& name, const Dim3& grid,
                                const Dim3& block) const {
  const size_t mask = index_.size() - 1;
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const uint64_t entry = index_[slot];
    if (entry == kEmptySlot) return slot;
    if (static_cast<uint32_t>(entry >> 32) != hash) continue;  // no need to read the definition
    const Cold& c = cold_[static_cast<uint32_t>(entry)];
    if (sameDim(c.def.grid, grid) && sameDim(c.def.block, block) && c.name() == name) return slot;
  }
}

void KernelAggregator::growIndex() {
  std::vector<uint64_t> old(std::max<size_t>(64, index_.size() * 2), kEmptySlot);
  old.swap(index_);
  const size_t mask = index_.size() - 1;
  for (const uint64_t entry : old) {
    if (entry == kEmptySlot) continue;
    size_t slot = (entry >> 32) & mask;  // the hash kept in the slot: no name read again
    while (index_[slot] != kEmptySlot) slot = (slot + 1) & mask;
    index_[slot] = entry;
  }
}

uint32_t KernelAggregator::groupFor(const KernelDef& def) {
  if (2 * (cold_.size() + 1) > index_.size()) growIndex();
  const std::string& name = def.demangled.empty() ? def.name : def.demangled;
  const uint32_t hash = hashOf(name, def.grid, def.block);
  const size_t slot = slotOf(hash, name, def.grid, def.block);
  if (index_[slot] == kEmptySlot) {
    // Each group needs a kernel_def line or a kernel event of its own: 2^31 of them do not fit in
    // memory long before the ids run out.
    index_[slot] = (uint64_t{hash} << 32) | cold_.size();
    cold_.emplace_back().def = def;
    hot_.emplace_back();
    intervals_.addGroup();
  }
  const auto group = static_cast<uint32_t>(index_[slot]);
  ++cold_[group].defs;
  return group;
}

uint32_t KernelAggregator::groupOfDef(uint32_t id) const {
  if (id < kDenseIds) return id < dense_def_group_.size() ? dense_def_group_[id] : kNone;
  const auto it = sparse_def_group_.find(id);
  return it == sparse_def_group_.end() ? kNone : it->second;
}

void KernelAggregator::setGroupOfDef(uint32_t id, uint32_t group) {
  if (id >= kDenseIds) {
    sparse_def_group_[id] = group;
    return;
  }
  if (id >= dense_def_group_.size())
    dense_def_group_.resize(std::max<size_t>(id + 1, dense_def_group_.size() * 2), kNone);
  dense_def_group_[id] = group;
}

void KernelAggregator::onDef(const KernelDef& def) {
  if (groupOfDef(def.id) != kNone)
    return;  // a repeated definition (e.g. in a later segment) changes nothing
  const uint32_t group = groupFor(def);
  setGroupOfDef(def.id, group);
  if (def.name.empty() || readable_.contains(def.name)) return;
  const std::string& own = cold_[group].def.name;
  readable_.emplace(own == def.name ? std::string_view(own) : extra_names_.emplace_back(def.name),
                    group);
}

const std::string* KernelAggregator::readableName(const std::string& mangled) const {
  const auto it = readable_.find(mangled);
  return it == readable_.end() ? nullptr : &cold_[it->second].name();
}

void KernelAggregator::onKernel(const KernelEvent& e) {
  uint32_t group = groupOfDef(e.def_id);
  if (group == kNone) {
    ++undefined_refs_;
    // Named so that it cannot pass for a function (readable-name rules leave "<...>" alone); its
    // launch shape is unknown, not the default (1,1,1).
    KernelDef unknown;
    unknown.id = e.def_id;
    unknown.name = unknown.demangled = "<unknown kernel def " + std::to_string(e.def_id) + ">";
    group = groupFor(unknown);
    setGroupOfDef(e.def_id, group);
    cold_[group].defined = false;
  }
  const int64_t dur = spanNs(e.start_ns, e.end_ns);
  // The group's tracker first, then the session's: the order in which they take from the budget.
  Hot& h = hot_[group];
  if (h.overflow == kNone) {
    if (h.exact < exact_limit_ && h.exact < UINT32_MAX && (!budget_ || budget_->take())) {
      samples_.add(group, dur, e.instrumented);
      ++h.exact;
    } else {
      h.overflow = static_cast<uint32_t>(overflow_.size());
      overflow_.emplace_back();
    }
  }
  if (h.overflow != kNone) {
    Overflow& o = overflow_[h.overflow];
    o.all.add(dur);
    o.all_totals.add(dur);
    if (e.instrumented) {
      ++o.instrumented;
    } else {
      o.clean.add(dur);
      o.clean_totals.add(dur);
    }
  }
  all_.add(dur);
  if (e.instrumented) {
    ++instrumented_;
  } else {
    clean_.add(dur);
  }
  intervals_.add(group, e.start_ns, satAdd(e.start_ns, dur));
  busy_.add(e.start_ns, satAdd(e.start_ns, dur));
}

void KernelAggregator::finish(int64_t session_ns, KernelSummary& out, const GpuSampleLog* samples,
                              bool last) {
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

  const size_t n = cold_.size();
  std::vector<uint32_t> counts(n);
  for (size_t g = 0; g < n; ++g) counts[g] = hot_[g].exact;
  GroupSampleLog::ByGroup by = last ? samples_.takeByGroup(counts) : samples_.byGroup(counts);
  const auto samplesOf = [&by](size_t g) {
    return std::span<int64_t>(by.samples).subspan(by.offsets[g], by.offsets[g + 1] - by.offsets[g]);
  };

  // Launched groups, by total time (then launches).
  struct Key {
    int64_t total_ns = 0;
    uint64_t count = 0;
  };
  std::vector<Key> keys(n);
  std::vector<uint32_t> order;
  for (size_t g = 0; g < n; ++g) {
    Key& k = keys[g];
    for (const int64_t v : samplesOf(g)) k.total_ns = satAdd(k.total_ns, v < 0 ? ~v : v);
    k.count = counts[g];
    if (hot_[g].overflow != kNone) {
      const DurationTotals& t = overflow_[hot_[g].overflow].all_totals;
      k.total_ns = satAdd(k.total_ns, t.total_ns);
      k.count += t.count;
    }
    if (k.count > 0) order.push_back(static_cast<uint32_t>(g));
  }
  std::stable_sort(order.begin(), order.end(), [&keys](uint32_t a, uint32_t b) {
    if (keys[a].total_ns != keys[b].total_ns) return keys[a].total_ns > keys[b].total_ns;
    return keys[a].count > keys[b].count;
  });

  {
    std::unordered_set<std::string_view> names;
    names.reserve(order.size());
    for (const uint32_t g : order) names.insert(cold_[g].name());
    out.unique_functions = names.size();
  }
  // When the cards' groups ran: taken now, so that a last finish can let the rest go first.
  std::vector<CoarseIntervals> ran;
  if (samples)
    for (size_t i = 0; i < order.size() && i < kCardGroups; ++i)
      ran.push_back(intervals_.of(order[i]));
  if (last) releaseAggregates();
  out.groups.reserve(order.size());
  for (const uint32_t g : order) {
    Cold& c = cold_[g];
    const size_t rank = out.groups.size();
    KernelGroup& kg = out.groups.emplace_back();  // built in place: no 600-byte move per group
    kg.grid = c.def.grid;
    kg.block = c.def.block;
    kg.defined = c.defined;
    kg.def = last ? std::move(c.def) : c.def;
    // The names move out of the definition: one copy of each per group (under 100,000 names a
    // second copy was a fifth of the report's memory).
    kg.mangled = std::move(kg.def.name);
    kg.name = kg.def.demangled.empty() ? kg.mangled : std::move(kg.def.demangled);
    kg.def.name.clear();
    kg.def.demangled.clear();
    kg.defs = c.defs;
    const std::span<int64_t> s = samplesOf(g);
    const size_t clean_n = GroupSampleLog::splitInstrumented(s);
    kg.instrumented = s.size() - clean_n;
    if (hot_[g].overflow == kNone &&
        clean_n == s.size()) {  // no instrumented launch: one selection
      std::tie(kg.durations, kg.clean) = exactAndBucketedSummary(s);
    } else if (hot_[g].overflow == kNone) {
      kg.clean = bucketedSummary(s.first(clean_n));  // the clean tracker is a histogram
      kg.durations = exactSummary(s);
    } else {
      const Overflow& o = overflow_[hot_[g].overflow];
      kg.instrumented += o.instrumented;
      LogHistogram all = o.all, clean = o.clean;
      DurationTotals all_totals = o.all_totals, clean_totals = o.clean_totals;
      for (size_t i = 0; i < s.size(); ++i) {
        all.add(s[i]);
        all_totals.add(s[i]);
        if (i < clean_n) {
          clean.add(s[i]);
          clean_totals.add(s[i]);
        }
      }
      kg.durations = histogramSummary(all, all_totals);
      kg.clean = histogramSummary(clean, clean_totals);
    }
    if (rank < ran.size()) {
      CoarseIntervals& r = ran[rank];
      kg.clocks = samples->window(kg.def.device, r.intervals(), r.resolutionNs());
    }
  }
}

// The report's groups are about to be built (their definitions move from cold_): what only
// aggregation needed goes first, and its pages back to the system, so that the two do not add up
// at the report's peak (under 100,000 kernel names, tens of MB each).
void KernelAggregator::releaseAggregates() {
  samples_ = GroupSampleLog{};  // its samples are in finish's `by` now
  intervals_ = GroupIntervals{};
  std::unordered_map<std::string_view, uint32_t>().swap(readable_);
  std::deque<std::string>().swap(extra_names_);
  std::vector<uint64_t>().swap(index_);
  std::vector<uint32_t>().swap(dense_def_group_);
  sparse_def_group_.clear();
#ifdef __GLIBC__
  malloc_trim(0);  // freed small blocks otherwise stay resident in the heap
#endif
}

}  // namespace gpufl::report
