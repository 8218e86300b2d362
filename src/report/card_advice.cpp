// The changes a "Why Is This Kernel Slow" card suggests: fixed rules in a fixed order (see
// docs/report.md), the first two that apply; a fallback when none does.
#include <cctype>
#include <string>

#include "report/card_stats.hpp"
#include "report/format.hpp"
#include "report/hints.hpp"

namespace gpufl::report {
namespace {

inline constexpr double kCardLowOccupancy = 0.5;        // occupancy below this with a limiter
inline constexpr double kCardLongScoreboardPct = 40.0;  // share of PC samples
inline constexpr double kCardBandwidthBoundPct = 60.0;  // of the DRAM peak

bool costlyThrottle(const std::string& reason) {
  return reason.find("power") != std::string::npos ||
         reason.find("thermal") != std::string::npos ||
         reason.find("slowdown") != std::string::npos;
}

}  // namespace

std::vector<CardAdvice> cardAdvice(const Report& r, const KernelGroup& g, const KernelCard& c) {
  std::vector<CardAdvice> all;
  const DeviceInfo* dev = deviceOf(r, g.def.device);
  // 1. Wasted global memory traffic.
  if (c.has_sass && c.sass.sectors_global > 0 &&
      c.memory_efficiency_pct < kLowMemoryEfficiencyPct) {
    double factor = c.sass.sectors_global_ideal
                        ? static_cast<double>(c.sass.sectors_global) /
                              static_cast<double>(c.sass.sectors_global_ideal)
                        : 0;
    all.push_back({"memory_efficiency",
                   "Coalesce global memory accesses first: only " +
                       formatPercent(c.memory_efficiency_pct) + " of the sectors fetched are used" +
                       (factor > 0 ? " (" + formatFixed(factor, 1) + "x the traffic needed)" : "") +
                       " — make adjacent threads read adjacent addresses, or stage reused data "
                       "in shared memory (tiling)."});
  }
  // 2. Occupancy held down by a named resource.
  if (g.def.occupancy && g.def.occupancy->occupancy < kCardLowOccupancy &&
      g.def.occupancy->limiting != LimitingResource::None) {
    std::string advice = occupancyAdvice(g, dev);
    if (!advice.empty()) {
      advice[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(advice[0])));
      all.push_back({"occupancy", advice});
    }
  }
  // 3. Divergent warps.
  if (c.has_sass && c.sass.inst_executed > 0 && c.warp_efficiency_pct < kLowWarpEfficiencyPct) {
    all.push_back({"divergence", "Reduce divergence: on average " +
                                     formatFixed(c.threads_per_warp, 1) + " of " +
                                     std::to_string(r.profile.warp_size) +
                                     " threads of a warp are active — sort or bin data so a warp "
                                     "takes one path, or use predicated (branchless) code."});
  }
  // 4. A grid too small to fill the GPU.
  uint64_t blocks = g.grid.count();
  // SMs from the device, else from the waves (blocks / (waves x blocks per SM)).
  uint64_t sms = dev && dev->sm_count > 0 ? static_cast<uint64_t>(dev->sm_count) : 0;
  int per_sm = g.def.occupancy ? g.def.occupancy->max_active_blocks : 0;
  if (sms == 0 && g.def.waves && *g.def.waves > 0 && per_sm > 0)
    sms = static_cast<uint64_t>(static_cast<double>(blocks) / (*g.def.waves * per_sm) + 0.5);
  if (g.def.waves && *g.def.waves < 1.0 && sms > 0 && blocks < sms) {
    all.push_back({"small_grid", "Expose more parallelism: " + formatCount(blocks) +
                                     (blocks == 1 ? " block runs" : " blocks run") + " on " +
                                     formatCount(sms) +
                                     " SMs, so most SMs sit idle — split the work into more "
                                     "blocks (one per output tile or row), or batch launches."});
  }
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
                       " of PC samples wait on global memory (Long Scoreboard) — prefetch into "
                       "registers or shared memory, or raise occupancy/ILP so other warps issue."});
  }
  // 6. Heavy global traffic. The sector rate bounds DRAM traffic from above (L2 hits count too):
  // past the DRAM peak it is L2 throughput, and keeping data on chip is the cure; near the peak
  // the kernel may be bandwidth-bound.
  if (c.has_bandwidth && c.peak_bps > 0 && c.peak_pct > 100.0) {
    all.push_back({"l2_traffic",
                   "Reuse data on chip: global loads and stores request " +
                       formatFixed(c.peak_pct / 100.0, 1) +
                       "x the DRAM peak, served by L2 — tile through shared memory (or "
                       "registers) so each block fetches a value once."});
  } else if (c.has_bandwidth && c.peak_bps > 0 && c.peak_pct >= kCardBandwidthBoundPct) {
    all.push_back({"bandwidth_bound",
                   "Move fewer bytes: global traffic is up to " + formatPercent(c.peak_pct, 0) +
                       " of the DRAM peak — fuse with neighbouring kernels, use smaller types, "
                       "or reuse data through shared memory/L2."});
  }
  // 7. Clocks lowered for power or heat while it ran.
  for (const std::string& reason : g.clocks.throttle) {
    if (!costlyThrottle(reason)) continue;
    all.push_back({"throttling", "Check power and cooling: the GPU was throttled (" + reason +
                                     ") while this kernel ran, so its clocks were lowered."});
    break;
  }
  if (all.size() > 2) all.resize(2);
  if (!all.empty()) return all;
  if (!c.has_sass && c.stall_samples == 0) {
    return {{"profile",
             "No obvious limiter in occupancy or grid size — rerun with profiling_engine "
             "PcSamplingWithSass to measure memory and warp efficiency and stall reasons."}};
  }
  return {{"roofline",
           "Nothing here looks wasteful: the kernel is limited by its algorithm or throughput — "
           "compare it with the roofline (ncu --section SpeedOfLight) before tuning further, or "
           "do less work."}};
}

}  // namespace gpufl::report
