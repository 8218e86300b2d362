// The changes a "Why Is This Kernel Slow" card suggests: fixed rules in a fixed order (see
// docs/report.md), the first two that apply; a fallback when none does. Each rule states what was
// measured and what to change. A library kernel (cuBLAS, PyTorch, ...) cannot be recompiled: its
// card keeps the first finding and says what the user can change about the call instead.
#include <algorithm>
#include <cctype>
#include <string>

#include "report/aggregate/card_stats.hpp"
#include "report/aggregate/hints.hpp"
#include "report/aggregate/kernel_origin.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

inline constexpr double kCardLowOccupancy = 0.5;        // occupancy below this with a limiter
inline constexpr double kCardLongScoreboardPct = 40.0;  // share of PC samples
inline constexpr double kCardBandwidthBoundPct = 60.0;  // of the DRAM peak

bool costlyThrottle(const std::string& reason) {
  return reason.find("power") != std::string::npos || reason.find("thermal") != std::string::npos ||
         reason.find("slowdown") != std::string::npos;
}

std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

struct Finding {
  std::string kind;
  std::string what;  // the measurement, one sentence
  std::string fix;   // what to change in the kernel's own code ("" when `what` already says it)
};

// Rules 1-4, about the kernel's code and launch: memory efficiency, occupancy, divergence, grid.
void codeFindings(const Report& r, const KernelGroup& g, const KernelCard& c, KernelOrigin origin,
                  std::vector<Finding>& all) {
  const DeviceInfo* dev = deviceOf(r, g.def.device);
  // 1. Wasted global memory traffic.
  if (c.sass && c.sass->totals.sectors_global > 0 &&
      c.sass->memory_efficiency_pct < kLowMemoryEfficiencyPct) {
    const SassTotals& t = c.sass->totals;
    double factor = t.sectors_global_ideal ? static_cast<double>(t.sectors_global) /
                                                 static_cast<double>(t.sectors_global_ideal)
                                           : 0;
    all.push_back(
        {"memory_efficiency",
         "Coalesce global memory accesses first: only " +
             formatPercent(c.sass->memory_efficiency_pct) + " of the sectors fetched are used" +
             (factor > 0 ? " (" + formatFixed(factor, 1) + "x the traffic needed)" : "") + ".",
         "Make adjacent threads read adjacent addresses, or stage reused data in shared "
         "memory (tiling)."});
  }
  // 2. Occupancy held down by a named resource (the advice names the figure a fix reaches, and is
  // empty when relieving the limiter gains nothing).
  if (g.def.occupancy && g.def.occupancy->occupancy < kCardLowOccupancy &&
      g.def.occupancy->limiting != LimitingResource::None) {
    std::string advice = origin == KernelOrigin::User ? occupancyAdvice(g, dev) : "";
    if (origin != KernelOrigin::User)
      all.push_back({"occupancy",
                     "Occupancy " + formatPercent(g.def.occupancy->occupancy * 100) +
                         " is limited by " + limitingResourceName(g.def.occupancy->limiting) +
                         ", the library's choice.",
                     ""});
    else if (!advice.empty())
      all.push_back({"occupancy", capitalized(advice), ""});
  }
  // 3. Divergent warps.
  if (c.sass && c.sass->totals.inst_executed > 0 &&
      c.sass->warp_efficiency_pct < kLowWarpEfficiencyPct) {
    all.push_back({"divergence",
                   "Reduce divergence: on average " + formatFixed(c.sass->threads_per_warp, 1) +
                       " of " + std::to_string(r.profile.warp_size) +
                       " threads of a warp are active.",
                   "Sort or bin data so a warp takes one path, or use predicated (branchless) "
                   "code."});
  }
  // 4. A grid that leaves SMs idle or half-used, or a mostly empty last wave.
  if (std::string fill = gridFillAdvice(g, dev); !fill.empty())
    all.push_back({"small_grid", "Fill the GPU: " + fill, ""});
}

// Rules 5-7, about what the run showed: stalls on memory latency, global traffic, throttling.
void runFindings(const KernelGroup& g, const KernelCard& c, std::vector<Finding>& all) {
  // 5. Warps waiting on memory latency.
  uint64_t long_scoreboard = 0;
  for (const StallCount& s : c.stalls)
    if (s.label.rfind("Long Scoreboard", 0) == 0) long_scoreboard += s.samples;
  double ls_pct = c.stall_samples ? 100.0 * static_cast<double>(long_scoreboard) /
                                        static_cast<double>(c.stall_samples)
                                  : 0;
  if (ls_pct >= kCardLongScoreboardPct) {
    all.push_back({"memory_latency",
                   "Hide memory latency: " + formatPercent(ls_pct, 0) +
                       " of PC samples wait on global memory (Long Scoreboard).",
                   "Prefetch into registers or shared memory, or raise occupancy or ILP so other "
                   "warps issue."});
  }
  // 6. Heavy global traffic. The sector rate bounds DRAM traffic from above (L2 hits count too):
  // past the DRAM peak it is L2 throughput, and keeping data on chip is the cure; near the peak
  // the kernel may be bandwidth-bound.
  const CardBandwidth* bw = c.bandwidth ? &*c.bandwidth : nullptr;
  if (bw && bw->peak_bps > 0 && bw->peak_pct > 100.0) {
    all.push_back({"l2_traffic",
                   "Reuse data on chip: global loads and stores request " +
                       formatFixed(bw->peak_pct / 100.0, 1) + "x the DRAM peak, served by L2.",
                   "Tile through shared memory (or registers) so each block fetches a value "
                   "once."});
  } else if (bw && bw->peak_bps > 0 && bw->peak_pct >= kCardBandwidthBoundPct) {
    all.push_back({"bandwidth_bound",
                   "Move fewer bytes: global traffic is up to " + formatPercent(bw->peak_pct, 0) +
                       " of the DRAM peak.",
                   "Fuse with neighbouring kernels, use smaller types, or reuse data through "
                   "shared memory or L2."});
  }
  // 7. Clocks lowered for power or heat while it ran.
  for (const std::string& reason : g.clocks.throttle) {
    if (!costlyThrottle(reason)) continue;
    all.push_back(
        {"throttling",
         "Check power and cooling: the GPU was throttled (" + reason + ") while this kernel ran.",
         ""});
    break;
  }
}

// The advice from the findings: a library kernel's most actionable finding and what to change
// about its calls; else the first two findings; else a fallback.
std::vector<CardAdvice> chosen(const std::vector<Finding>& all, const KernelCard& c,
                               KernelOrigin origin) {
  std::vector<CardAdvice> out;
  if (origin != KernelOrigin::User) {
    // The user cannot change the kernel: its most actionable finding (the grid says how much work
    // each call brings), then what they can change about the calls.
    auto first = std::find_if(all.begin(), all.end(),
                              [](const Finding& f) { return f.kind == "small_grid"; });
    if (first == all.end()) first = all.begin();
    if (first != all.end()) out.push_back({first->kind, first->what});
    out.push_back({"library", "It is a " + std::string(originLabel(origin)) +
                                  " kernel, so change the call: " + libraryAdvice(origin) + "."});
    return out;
  }
  for (const Finding& f : all) {
    if (out.size() == 2) break;
    out.push_back({f.kind, f.fix.empty() ? f.what : f.what + " " + f.fix});
  }
  if (!out.empty()) return out;
  if (!c.sass && c.stall_samples == 0) {
    return {{"profile",
             "No obvious limiter in occupancy or grid size. Rerun with profiling_engine "
             "PcSamplingWithSass to measure memory and warp efficiency and stall reasons."}};
  }
  return {{"roofline",
           "Nothing here looks wasteful: the kernel is limited by its algorithm or throughput. "
           "Compare it with the roofline (ncu --section SpeedOfLight), or do less work."}};
}

}  // namespace

std::vector<CardAdvice> cardAdvice(const Report& r, const KernelGroup& g, const KernelCard& c) {
  const KernelOrigin origin = kernelOrigin(g.name, g.mangled);
  std::vector<Finding> all;
  codeFindings(r, g, c, origin, all);
  runFindings(g, c, all);
  return chosen(all, c, origin);
}

}  // namespace gpufl::report
