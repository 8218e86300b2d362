// Many processes, one report: the sessions of several prefixes (the ranks of one job, or the
// children `gpufl trace` wrote with their pids) side by side. Each rank is aggregated by the
// ordinary ReportBuilder; this compares the results: a summary per rank, the same scopes and
// kernels across ranks, and stragglers named with how far behind they are and where.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/model/report_model.hpp"
#include "report/model/report_options.hpp"

namespace gpufl::report {

// What each rank contributes: its prefix and its one-session report.
struct RankInput {
  std::string prefix;
  Report report;
};

// One scope (by full path, "train/step") or one kernel (by demangled name) measured on every rank
// that has it.
struct AcrossRanks {
  std::string name;
  std::vector<int64_t> total_ns;  // per rank; -1 where the rank does not have it
  std::vector<uint64_t> count;    // calls or launches per rank
  // Over the ranks that have it: the median (the mean of the middle two for an even count), the
  // slowest rank and how far it is over the median of the others (for two ranks: over the other).
  int64_t median_ns = 0;
  size_t slowest = 0;
  int64_t slowest_excess_ns = 0;
  double slowest_excess_pct = 0;
};

struct Straggler {
  size_t rank = 0;
  int64_t behind_ns = 0;  // its work time minus the median of the other ranks'
  double behind_pct = 0;  // of that median
  // Where the extra time went: scopes and kernels with the largest excess over the other ranks'
  // median.
  struct Excess {
    std::string name;
    int64_t excess_ns = 0;
    uint64_t count = 0, median_count = 0;
  };
  std::vector<Excess> scopes, kernels;
  // With collectives: how much longer the other ranks' median spent in collectives than this rank,
  // the time they waited for it there.
  int64_t others_waited_ns = 0;
};

struct RanksReport {
  std::vector<RankInput> ranks;
  // Clocks: wall time of each rank's start relative to the earliest, and of its end.
  std::vector<int64_t> start_offset_ns, end_offset_ns;
  // Spread of (start_unix_ns - start_ns) among ranks of one host: how well the pairing of the two
  // clocks agrees (they share CLOCK_MONOTONIC). -1 when no host has two ranks.
  int64_t same_host_pairing_spread_ns = -1;
  bool several_hosts = false;
  std::string
      work_measure;  // "scope time" (top-level scopes) or "GPU time" (no scopes on some rank)
  std::vector<int64_t> work_ns;
  // Time in collectives per rank. Ranks wait for the slowest inside a collective, so that wait
  // shows on the fast ranks: work_ns leaves this time out. collective_kind says what was measured:
  // "collective scopes" (host time in scopes named after a collective, e.g. around a gloo
  // all_reduce; used when every rank has scopes) or "NCCL collectives" (GPU time in NCCL kernels).
  std::vector<int64_t> collective_ns;
  std::string collective_kind;  // "" without collectives
  bool collectives = false;
  std::vector<AcrossRanks> scopes, kernels;  // by largest spread (max - min) first
  std::vector<Straggler> stragglers;         // most behind first
};

// A rank is a straggler when its work exceeds the other ranks' median by both of these.
inline constexpr double kStragglerMinPct = 5.0;
inline constexpr int64_t kStragglerMinNs = 1'000'000;

RanksReport compareRanks(std::vector<RankInput> ranks);
std::string renderRanksText(const RanksReport& r, const ReportOptions& options);

// Reads each prefix (its latest session, or `session`) and renders the comparison.
ReportOutput reportFromPrefixes(const std::vector<std::string>& prefixes,
                                const std::string& session, const ReportOptions& options);

}  // namespace gpufl::report
