#include "report/diff/diff_stats.hpp"

#include <algorithm>
#include <cmath>

#include "report/text/format.hpp"

namespace gpufl::report {

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Same:
      return "same";
    case Verdict::Faster:
      return "faster";
    case Verdict::Slower:
      return "slower";
    case Verdict::TooFew:
      return "too_few";
    case Verdict::New:
      return "new";
    case Verdict::Vanished:
      return "vanished";
  }
  return "?";
}

// ---- collecting a side ----

void DiffCollector::onKernelDef(const KernelDef& e) {
  Def d;
  d.function = e.demangled.empty() ? e.name : e.demangled;
  d.mangled = e.name;
  d.key = d.function + " grid" + formatDim3(e.grid) + " block" + formatDim3(e.block);
  if (e.occupancy) d.occupancy = e.occupancy->occupancy;
  defs_[e.id] = std::move(d);
}

void DiffCollector::onKernel(const KernelEvent& e) {
  Launches& l = launches_[e.def_id];
  (e.instrumented ? l.instrumented : l.clean).push_back(static_cast<double>(e.end_ns - e.start_ns));
}

void DiffCollector::onScopePath(const ScopePath& e) {
  paths_[e.id] = {e.parent, e.name};
}

void DiffCollector::onScopeBegin(const ScopeBegin& e) {
  open_[e.id] = {e.path, e.ts_ns};
}

void DiffCollector::onScopeEnd(const ScopeEnd& e) {
  auto it = open_.find(e.id);
  if (it == open_.end()) return;
  scope_ns_[it->second.first].push_back(static_cast<double>(e.ts_ns - it->second.second));
  open_.erase(it);
}

void DiffCollector::onSassMetric(const SassMetric& e) {
  auto& s = sectors_[e.func];
  s.first += e.sectors_global_ideal;
  s.second += e.sectors_global;
}

void DiffCollector::onBenchmark(const BenchmarkResult& e) {
  std::string key = e.name;
  if (!e.shape.empty()) key += " [" + e.shape + "]";
  if (!e.dtype.empty()) key += " " + e.dtype;
  benchmarks_[key] = e;
}

DiffSide DiffCollector::finish(std::string label) {
  DiffSide side;
  side.label = std::move(label);
  for (auto& [id, l] : launches_) {
    auto def = defs_.find(id);
    const std::string key =
        def == defs_.end() ? "kernel #" + std::to_string(id) + " (no kernel_def)" : def->second.key;
    DiffSide::Group& g = side.kernels[key];
    g.count += l.clean.size() + l.instrumented.size();
    // Instrumented launches are slower by the instrumentation: only clean ones are compared when
    // there are any.
    std::vector<double>& from = l.clean.empty() ? l.instrumented : l.clean;
    g.ns.insert(g.ns.end(), from.begin(), from.end());
    if (def == defs_.end()) continue;
    if (def->second.occupancy) g.occupancy = def->second.occupancy;
    auto sec = sectors_.find(def->second.mangled);  // SASS metrics name the function as CUPTI does
    if (sec == sectors_.end()) sec = sectors_.find(def->second.function);
    if (sec != sectors_.end() && sec->second.second > 0)
      g.memory_efficiency =
          static_cast<double>(sec->second.first) / static_cast<double>(sec->second.second);
  }
  for (auto& [id, ns] : scope_ns_) {
    std::string path;
    for (uint32_t at = id, guard = 0; at != 0 && guard < 256; ++guard) {
      auto p = paths_.find(at);
      if (p == paths_.end()) {
        path = "#" + std::to_string(at) + (path.empty() ? "" : "/" + path);
        break;
      }
      path = p->second.second + (path.empty() ? "" : "/" + path);
      at = p->second.first;
    }
    DiffSide::Group& g = side.scopes[path];
    g.count += ns.size();
    g.ns.insert(g.ns.end(), ns.begin(), ns.end());
  }
  side.benchmarks = std::move(benchmarks_);
  return side;
}

// ---- statistics ----

double medianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2) return hi;
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + hi) / 2;
}

double rankTestPValue(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1;
  struct V {
    double x;
    bool in_a;
  };
  std::vector<V> all;
  all.reserve(a.size() + b.size());
  for (double x : a) all.push_back({x, true});
  for (double x : b) all.push_back({x, false});
  std::sort(all.begin(), all.end(), [](const V& l, const V& r) { return l.x < r.x; });
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size()), n = n1 + n2;
  double rank_sum_a = 0, ties = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].x == all[i].x) ++j;
    const double avg_rank =
        (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks i+1..j
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (all[k].in_a) rank_sum_a += avg_rank;
    i = j;
  }
  const double u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mean = n1 * n2 / 2;
  const double var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (var <= 0) return 1;  // every value equal
  const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(var);
  return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

namespace {

GroupDiff compareSamples(const std::string& kind, const std::string& key, const DiffSide::Group* b,
                         const DiffSide::Group* n, const DiffOptions& o, double alpha) {
  GroupDiff d;
  d.kind = kind;
  d.key = key;
  if (b) {
    d.base_count = b->count;
    d.base_median_ns = medianOf(b->ns);
    d.base_occupancy = b->occupancy;
    d.base_memory_efficiency = b->memory_efficiency;
  }
  if (n) {
    d.new_count = n->count;
    d.new_median_ns = medianOf(n->ns);
    d.new_occupancy = n->occupancy;
    d.new_memory_efficiency = n->memory_efficiency;
  }
  if (!b || !n) {
    d.verdict = b ? Verdict::Vanished : Verdict::New;
    return d;
  }
  d.change = d.base_median_ns > 0 ? d.new_median_ns / d.base_median_ns - 1 : 0;
  if (b->ns.size() < o.min_samples || n->ns.size() < o.min_samples) {
    d.verdict = Verdict::TooFew;
    return d;
  }
  d.p_value = rankTestPValue(b->ns, n->ns);
  if (d.p_value >= alpha) return d;  // Same: the noise explains the difference
  d.verdict = d.change > 0 ? Verdict::Slower : Verdict::Faster;
  d.regression = d.verdict == Verdict::Slower && d.change > o.threshold;
  return d;
}

GroupDiff compareBenchmarks(const std::string& key, const BenchmarkResult* b,
                            const BenchmarkResult* n, const DiffOptions& o) {
  GroupDiff d;
  d.kind = "benchmark";
  d.key = key;
  if (b) {
    d.base_count = b->reps;
    d.base_median_ns = static_cast<double>(b->median_ns);
  }
  if (n) {
    d.new_count = n->reps;
    d.new_median_ns = static_cast<double>(n->median_ns);
  }
  if (!b || !n) {
    d.verdict = b ? Verdict::Vanished : Verdict::New;
    return d;
  }
  d.change = d.base_median_ns > 0 ? d.new_median_ns / d.base_median_ns - 1 : 0;
  if (b->p10_ns <= 0 || n->p10_ns <= 0 || b->reps < o.min_samples || n->reps < o.min_samples) {
    d.verdict = Verdict::TooFew;  // no spread recorded: nothing to judge the noise by
    return d;
  }
  const bool apart = n->p10_ns > b->p90_ns || n->p90_ns < b->p10_ns;
  d.p_value = apart ? 0 : 1;
  if (!apart) return d;
  d.verdict = d.change > 0 ? Verdict::Slower : Verdict::Faster;
  d.regression = d.verdict == Verdict::Slower && d.change > o.threshold;
  return d;
}

template <typename Map>
std::vector<std::string> keysOfEither(const Map& a, const Map& b) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : a) keys.push_back(k);
  for (const auto& [k, v] : b)
    if (!a.count(k)) keys.push_back(k);
  return keys;
}

template <typename Map>
auto find(const Map& m, const std::string& k) -> const typename Map::mapped_type* {
  auto it = m.find(k);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

SessionDiff diffSessions(const DiffSide& base, const DiffSide& next, const DiffOptions& o) {
  SessionDiff d;
  d.base_label = base.label;
  d.new_label = next.label;
  d.base_damage = base.damage;
  d.new_damage = next.damage;
  d.options = o;
  const auto kernels = keysOfEither(base.kernels, next.kernels);
  const auto scopes = keysOfEither(base.scopes, next.scopes);
  size_t tests = 0;
  for (const auto& k : kernels) tests += base.kernels.count(k) && next.kernels.count(k);
  for (const auto& k : scopes) tests += base.scopes.count(k) && next.scopes.count(k);
  d.alpha_per_test = o.alpha / static_cast<double>(std::max<size_t>(tests, 1));
  auto byChange = [](const GroupDiff& a, const GroupDiff& b) {
    return std::fabs(a.change) > std::fabs(b.change);
  };
  std::vector<GroupDiff> part;
  for (const auto& k : kernels)
    part.push_back(compareSamples("kernel", k, find(base.kernels, k), find(next.kernels, k), o,
                                  d.alpha_per_test));
  std::stable_sort(part.begin(), part.end(), byChange);
  d.groups.insert(d.groups.end(), part.begin(), part.end());
  part.clear();
  for (const auto& k : scopes)
    part.push_back(compareSamples("scope", k, find(base.scopes, k), find(next.scopes, k), o,
                                  d.alpha_per_test));
  std::stable_sort(part.begin(), part.end(), byChange);
  d.groups.insert(d.groups.end(), part.begin(), part.end());
  part.clear();
  for (const auto& k : keysOfEither(base.benchmarks, next.benchmarks))
    part.push_back(compareBenchmarks(k, find(base.benchmarks, k), find(next.benchmarks, k), o));
  std::stable_sort(part.begin(), part.end(), byChange);
  d.groups.insert(d.groups.end(), part.begin(), part.end());
  for (const GroupDiff& g : d.groups) d.regressions += g.regression;
  return d;
}

}  // namespace gpufl::report
