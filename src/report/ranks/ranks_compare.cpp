#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "report/aggregate/kernel_origin.hpp"
#include "report/ranks/ranks.hpp"

namespace gpufl::report {
namespace {

int64_t median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// "train/step": a scope row's name with its parents'.
std::string fullPath(const ScopeSummary& s, uint32_t path) {
  std::map<uint32_t, const ScopeRow*> by_id;
  for (const ScopeRow& r : s.rows) by_id[r.path] = &r;
  std::string out;
  for (int guard = 0; path != 0 && guard < 1000; ++guard) {
    auto it = by_id.find(path);
    if (it == by_id.end()) break;
    out = out.empty() ? it->second->name : it->second->name + "/" + out;
    path = it->second->parent;
  }
  return out;
}

// A scope named after a collective ("allreduce", "all_reduce", "AllGather", "barrier", ...): how
// jobs whose collectives run on the host (gloo, MPI) or are synchronized mark them.
bool isCollectiveScopeName(const std::string& name) {
  std::string n;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"allreduce", "allgather", "reducescatter", "alltoall", "barrier",
                           "broadcast", "collective"})
    if (n.find(word) != std::string::npos) return true;
  return false;
}

// Host time in collective scopes, each counted once (not again for a collective nested in one).
int64_t collectiveScopeNs(const ScopeSummary& s) {
  std::map<uint32_t, const ScopeRow*> by_id;
  for (const ScopeRow& r : s.rows) by_id[r.path] = &r;
  int64_t total = 0;
  for (const ScopeRow& r : s.rows) {
    if (!isCollectiveScopeName(r.name)) continue;
    bool inside_another = false;
    for (uint32_t p = r.parent, guard = 0; p != 0 && guard < 1000; ++guard) {
      auto it = by_id.find(p);
      if (it == by_id.end()) break;
      inside_another = inside_another || isCollectiveScopeName(it->second->name);
      p = it->second->parent;
    }
    if (!inside_another) total += r.total_ns;
  }
  return total;
}

// Fills one AcrossRanks per name from each rank's (name -> total, count).
std::vector<AcrossRanks> across(
    const std::vector<std::map<std::string, std::pair<int64_t, uint64_t>>>& per) {
  std::set<std::string> names;
  for (const auto& m : per)
    for (const auto& [name, v] : m) names.insert(name);
  std::vector<AcrossRanks> out;
  for (const std::string& name : names) {
    AcrossRanks a;
    a.name = name;
    for (const auto& m : per) {
      auto it = m.find(name);
      a.total_ns.push_back(it == m.end() ? -1 : it->second.first);
      a.count.push_back(it == m.end() ? 0 : it->second.second);
    }
    std::vector<int64_t> present;
    for (size_t i = 0; i < a.total_ns.size(); ++i)
      if (a.total_ns[i] >= 0) {
        present.push_back(a.total_ns[i]);
        if (a.total_ns[i] > a.total_ns[a.slowest]) a.slowest = i;
      }
    a.median_ns = median(present);
    std::vector<int64_t> others;
    for (size_t i = 0; i < a.total_ns.size(); ++i)
      if (i != a.slowest && a.total_ns[i] >= 0) others.push_back(a.total_ns[i]);
    if (!others.empty()) {
      const int64_t base = median(others);
      a.slowest_excess_ns = a.total_ns[a.slowest] - base;
      a.slowest_excess_pct =
          base > 0 ? 100.0 * static_cast<double>(a.slowest_excess_ns) / static_cast<double>(base)
                   : 0;
    }
    out.push_back(std::move(a));
  }
  auto spread = [](const AcrossRanks& a) {
    int64_t lo = INT64_MAX, hi = 0;
    for (int64_t t : a.total_ns)
      if (t >= 0) lo = std::min(lo, t), hi = std::max(hi, t);
    return lo == INT64_MAX ? 0 : hi - lo;
  };
  std::stable_sort(out.begin(), out.end(), [&](const AcrossRanks& a, const AcrossRanks& b) {
    return spread(a) > spread(b);
  });
  return out;
}

// The names with the largest excess of rank `r` over the other ranks' median (only names all others
// have).
std::vector<Straggler::Excess> excessOf(const std::vector<AcrossRanks>& rows, size_t r,
                                        size_t keep) {
  std::vector<Straggler::Excess> out;
  for (const AcrossRanks& a : rows) {
    if (a.total_ns[r] < 0) continue;
    std::vector<int64_t> others;
    std::vector<int64_t> other_counts;
    for (size_t i = 0; i < a.total_ns.size(); ++i)
      if (i != r && a.total_ns[i] >= 0) {
        others.push_back(a.total_ns[i]);
        other_counts.push_back(static_cast<int64_t>(a.count[i]));
      }
    if (others.empty()) continue;
    const int64_t excess = a.total_ns[r] - median(others);
    if (excess <= 0) continue;
    out.push_back({a.name, excess, a.count[r], static_cast<uint64_t>(median(other_counts))});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.excess_ns > b.excess_ns; });
  if (out.size() > keep) out.resize(keep);
  return out;
}

// Clocks: each session pairs its monotonic start with the wall clock read at the same moment.
void compareClocks(RanksReport& out) {
  int64_t first_start = INT64_MAX, first_end = INT64_MAX;
  std::map<std::string, std::pair<int64_t, int64_t>>
      pairing_by_host;  // host -> min, max of the pairing
  std::map<std::string, int> ranks_by_host;
  for (const RankInput& r : out.ranks) {
    const SessionSummary& s = r.report.session;
    first_start = std::min(first_start, s.start_unix_ns);
    first_end = std::min(first_end, s.start_unix_ns + s.duration_ns);
    const int64_t pairing = s.start_unix_ns - s.start_ns;
    auto [it, fresh] = pairing_by_host.try_emplace(s.host, pairing, pairing);
    it->second.first = std::min(it->second.first, pairing);
    it->second.second = std::max(it->second.second, pairing);
    ++ranks_by_host[s.host];
  }
  out.several_hosts = pairing_by_host.size() > 1;
  for (const auto& [host, range] : pairing_by_host)
    if (ranks_by_host[host] > 1)
      out.same_host_pairing_spread_ns =
          std::max(out.same_host_pairing_spread_ns, range.second - range.first);
  for (const RankInput& r : out.ranks) {
    const SessionSummary& s = r.report.session;
    out.start_offset_ns.push_back(s.start_unix_ns - first_start);
    out.end_offset_ns.push_back(s.start_unix_ns + s.duration_ns - first_end);
  }
}

// What each rank spent where, beside the scopes and kernels compared across ranks.
struct RankTimes {
  bool all_have_scopes = false;
  std::vector<int64_t> top_scope_ns, in_nccl, in_collective_scopes;
};

// The same scopes and kernels on every rank.
RankTimes compareScopesAndKernels(RanksReport& out) {
  const size_t n = out.ranks.size();
  std::vector<std::map<std::string, std::pair<int64_t, uint64_t>>> scopes(n), kernels(n);
  RankTimes t;
  t.all_have_scopes = n > 0;
  t.top_scope_ns.assign(n, 0);
  t.in_nccl.assign(n, 0);
  t.in_collective_scopes.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Report& rep = out.ranks[i].report;
    for (const ScopeRow& row : rep.scopes.rows) {
      auto& v = scopes[i][fullPath(rep.scopes, row.path)];
      v.first += row.total_ns;
      v.second += row.calls;
      if (row.depth == 0) t.top_scope_ns[i] += row.total_ns;
    }
    if (rep.scopes.rows.empty()) t.all_have_scopes = false;
    t.in_collective_scopes[i] = collectiveScopeNs(rep.scopes);
    for (const KernelGroup& g : rep.kernels.groups) {
      auto& v = kernels[i][g.name];
      v.first += g.durations.total_ns;
      v.second += g.durations.count;
      if (kernelOrigin(g.name, g.mangled) == KernelOrigin::Nccl)
        t.in_nccl[i] += g.durations.total_ns;
    }
  }
  out.scopes = across(scopes);
  out.kernels = across(kernels);
  return t;
}

// Collectives: a rank that waits for a slower one spends the wait inside the collective (the NCCL
// kernel, or the host call of gloo): counted as work, it would make every rank but the slow one
// look behind. Scopes named after collectives measure the wait where every rank has scopes (host
// time, what a scope measures); otherwise NCCL kernels' GPU time.
void findCollectives(RanksReport& out, const RankTimes& t) {
  auto any = [](const std::vector<int64_t>& v) {
    return std::any_of(v.begin(), v.end(), [](int64_t x) { return x > 0; });
  };
  if (t.all_have_scopes && any(t.in_collective_scopes)) {
    out.collective_ns = t.in_collective_scopes;
    out.collective_kind = "collective scopes";
  } else if (any(t.in_nccl)) {
    out.collective_ns = t.in_nccl;
    out.collective_kind = "NCCL collectives";
  }
  out.collectives = !out.collective_kind.empty();
}

// Stragglers: work beyond the other ranks' median, most behind first.
void findStragglers(RanksReport& out, const RankTimes& t) {
  const size_t n = out.ranks.size();
  out.work_measure = t.all_have_scopes ? "time in top-level scopes" : "GPU time";
  if (out.collectives) out.work_measure += " outside " + out.collective_kind;
  for (size_t i = 0; i < n; ++i) {
    const int64_t work =
        t.all_have_scopes ? t.top_scope_ns[i] : out.ranks[i].report.kernels.total_ns;
    out.work_ns.push_back(out.collectives ? std::max<int64_t>(0, work - out.collective_ns[i])
                                          : work);
  }
  for (size_t i = 0; n > 1 && i < n; ++i) {
    std::vector<int64_t> others;
    for (size_t j = 0; j < n; ++j)
      if (j != i) others.push_back(out.work_ns[j]);
    const int64_t base = median(others);
    const int64_t behind = out.work_ns[i] - base;
    const double pct =
        base > 0 ? 100.0 * static_cast<double>(behind) / static_cast<double>(base) : 0;
    if (behind < kStragglerMinNs || pct < kStragglerMinPct) continue;
    Straggler s;
    s.rank = i;
    s.behind_ns = behind;
    s.behind_pct = pct;
    s.scopes = excessOf(out.scopes, i, 3);
    s.kernels = excessOf(out.kernels, i, 3);
    if (out.collectives) {
      std::vector<int64_t> others_in_collectives;
      for (size_t j = 0; j < n; ++j)
        if (j != i) others_in_collectives.push_back(out.collective_ns[j]);
      s.others_waited_ns = median(others_in_collectives) - out.collective_ns[i];
    }
    out.stragglers.push_back(std::move(s));
  }
  std::stable_sort(
      out.stragglers.begin(), out.stragglers.end(),
      [](const Straggler& a, const Straggler& b) { return a.behind_ns > b.behind_ns; });
}

}  // namespace

RanksReport compareRanks(std::vector<RankInput> ranks) {
  RanksReport out;
  out.ranks = std::move(ranks);
  compareClocks(out);
  const RankTimes times = compareScopesAndKernels(out);
  findCollectives(out, times);
  findStragglers(out, times);
  return out;
}

}  // namespace gpufl::report
