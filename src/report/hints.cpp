#include "report/hints.hpp"

#include <string>

#include "report/format.hpp"

namespace gpufl::report {

const DeviceInfo* deviceOf(const Report& r, uint32_t id) {
  for (const DeviceInfo& d : r.session.devices)
    if (d.id == id) return &d;
  return r.session.devices.empty() ? nullptr : &r.session.devices.front();
}

namespace {

constexpr size_t kNameWidth = 48;


std::string wasteFactor(const SassTotals& s) {
  if (s.sectors_global_ideal == 0) return "";
  double factor =
      static_cast<double>(s.sectors_global) / static_cast<double>(s.sectors_global_ideal);
  return ", " + formatFixed(factor, 1) + "x the traffic needed";
}

void functionHints(const Report& r, FunctionProfile& f) {
  if (f.has_sass && f.sass.sectors_global > 0 &&
      f.sass.memoryEfficiencyPct() < kLowMemoryEfficiencyPct) {
    f.hints.push_back({"memory_efficiency", f.name,
                       "Low memory efficiency (" + formatFixed(f.sass.memoryEfficiencyPct(), 0) +
                           "%) — consider coalesced access patterns or shared memory tiling."});
  }
  if (f.has_sass && f.sass.inst_executed > 0 &&
      f.sass.warpEfficiencyPct(r.profile.warp_size) < kLowWarpEfficiencyPct) {
    f.hints.push_back(
        {"divergence", f.name,
         "Low warp efficiency (" + formatFixed(f.sass.warpEfficiencyPct(r.profile.warp_size), 0) +
             "%, " + formatFixed(f.sass.threadsPerWarp(), 1) + " of " +
             std::to_string(r.profile.warp_size) +
             " threads active) — threads of a warp take different branches; group data so a "
             "warp branches together, or use branchless (predicated) code."});
  }
  uint64_t long_scoreboard = 0;
  for (const StallCount& s : f.stalls)
    if (s.label.rfind("Long Scoreboard", 0) == 0) long_scoreboard += s.samples;
  if (f.stall_samples > 0 && 100.0 * long_scoreboard / f.stall_samples >= 40.0) {
    f.hints.push_back({"memory_latency", f.name,
                       "Warps mostly wait on global/local memory (Long Scoreboard " +
                           formatFixed(100.0 * long_scoreboard / f.stall_samples, 0) +
                           "% of samples) — improve locality and coalescing, or raise occupancy to "
                           "hide latency."});
  }
}

// A grid smaller than one wave: say how many of the wave's block slots it fills.
std::string smallGrid(const KernelGroup& g, const DeviceInfo* dev) {
  uint64_t blocks = g.grid.count();
  std::string grid = "a grid of " + formatCount(blocks) + (blocks == 1 ? " block" : " blocks");
  std::string fill;
  int per_sm = g.def.occupancy ? g.def.occupancy->max_active_blocks : 0;
  if (per_sm > 0 && dev && dev->sm_count > 0) {
    uint64_t slots = static_cast<uint64_t>(per_sm) * static_cast<uint64_t>(dev->sm_count);
    fill = " uses " + formatCount(blocks) + " of the " + formatCount(slots) +
           " block slots of one wave (" + std::to_string(per_sm) + " per SM x " +
           std::to_string(dev->sm_count) + " SMs)";
  } else {
    fill = " fills " + formatPercent(*g.def.waves * 100) + " of one wave";
  }
  return grid + fill +
         " — most SMs sit idle; split the work into more blocks or give each launch more work.";
}

void groupHints(const Report& r, std::vector<Hint>& out) {
  const KernelSummary& k = r.kernels;
  for (size_t i = 0; i < k.groups.size() && i < kHintGroups; ++i) {
    const KernelGroup& g = k.groups[i];
    if (k.total_ns > 0 && 100.0 * g.durations.total_ns / k.total_ns < kHintGroupMinSharePct)
      continue;
    if (!g.defined) continue;  // nothing is known of its launch to advise on
    std::string who = shortenKernelName(g.name, kNameWidth) + " " + formatDim3(g.grid) + "x" +
                      formatDim3(g.block) + ": ";
    const DeviceInfo* dev = deviceOf(r, g.def.device);
    if (g.def.occupancy && g.def.occupancy->occupancy < kFullOccupancy) {
      std::string advice = occupancyAdvice(g, dev);
      if (!advice.empty()) out.push_back({"occupancy", g.name, who + advice});
    }
    if (g.def.local_bytes > 0) {
      out.push_back(
          {"local_memory", g.name,
           who + formatBytes(static_cast<uint64_t>(g.def.local_bytes)) +
               " of local memory per thread (register spills or local arrays, as slow as global "
               "memory) — check ptxas -v, reduce register pressure or raise the register cap."});
    }
    if (g.def.waves && *g.def.waves > 0 && *g.def.waves < 1.0)
      out.push_back({"small_grid", g.name, who + smallGrid(g, dev)});
  }
}

void timingHints(const Report& r, std::vector<Hint>& out) {
  const KernelSummary& k = r.kernels;
  if (k.instrumented > 0) {
    std::string clean = k.clean.count > 0
                            ? " Clean figures from " + formatCount(k.clean.count) +
                                  " uninstrumented launches are shown beside them."
                            : " For clean timings rerun with profiling_engine None (trace only).";
    out.push_back({"instrumentation", "",
                   "Kernel durations are inflated: " + formatCount(k.instrumented) + " of " +
                       formatCount(k.launches) + " launches ran under SASS/PC instrumentation (" +
                       engineName(r.session.engine) +
                       "); compare them only with runs under the same engine." + clean});
  }
  bool timed = k.launches > 0 && r.session.duration_ns > 0;
  if (timed && k.launches >= kLaunchBoundMinLaunches && k.all.median_ns < kLaunchBoundMedianNs &&
      k.busy_pct < kLaunchBoundBusyPct) {
    out.push_back({"launch_bound", "",
                   "Launch-bound: " + formatCount(k.launches) + " kernels with a median of " +
                       formatDuration(k.all.median_ns) + " kept the GPU busy only " +
                       formatPercent(k.busy_pct) +
                       " of the session — capture the launch sequence in a CUDA graph, "
                       "fuse small kernels, or give each launch more work."});
  } else if (timed && k.busy_pct < kIdleGpuBusyPct) {
    out.push_back({"gpu_idle", "",
                   "The GPU ran kernels only " + formatPercent(k.busy_pct) +
                       " of the session — time went to host code, copies or synchronisation; "
                       "overlap them (streams, async copies) or move more work to the GPU."});
  }
}

// Per-function hints, and their session-wide summaries with the figures behind them.
void profileHints(Report& r, std::vector<Hint>& out) {
  for (FunctionProfile& f : r.profile.functions) {
    functionHints(r, f);
    std::string name = shortenKernelName(f.name, kNameWidth);
    for (const Hint& h : f.hints) {
      if (h.kind == "memory_efficiency") {
        out.push_back({h.kind, f.name,
                       name + ": memory efficiency " + formatPercent(f.sass.memoryEfficiencyPct()) +
                           " (" + formatCount(f.sass.sectors_global) + " global sectors vs " +
                           formatCount(f.sass.sectors_global_ideal) + " ideal" +
                           wasteFactor(f.sass) +
                           ") — make adjacent threads access adjacent addresses (coalescing) "
                           "or stage reused data in shared memory (tiling)."});
      } else if (h.kind == "divergence") {
        out.push_back({h.kind, f.name,
                       name + ": warp efficiency " +
                           formatPercent(f.sass.warpEfficiencyPct(r.profile.warp_size)) +
                           " — threads of a warp diverge; sort or bin data so a warp takes "
                           "one path, or replace branches with predicated arithmetic."});
      }
    }
  }
}

void machineHints(const Report& r, std::vector<Hint>& out) {
  const TransferSummary& t = r.transfers;
  if (t.pageable_copies > 0 && t.pageable_bytes >= (uint64_t{1} << 20)) {
    out.push_back({"pageable_memory", "",
                   formatCount(t.pageable_copies) + " copies (" + formatBytes(t.pageable_bytes) +
                       ") used pageable host memory — pin host buffers (cudaMallocHost, "
                       "cudaHostRegister, pin_memory=True) for faster copies that can overlap "
                       "compute."});
  }
  for (const GpuSystemStats& g : r.gpus) {
    for (const ThrottleShare& t : g.throttle) {
      bool costly = t.reason.find("power") != std::string::npos ||
                    t.reason.find("thermal") != std::string::npos ||
                    t.reason.find("slowdown") != std::string::npos;
      if (!costly || t.pct < kThrottleHintPct) continue;
      std::string gpu = "GPU " + std::to_string(g.gpu);
      out.push_back({"throttling", gpu,
                     gpu + " was throttled (" + t.reason + " in " + formatPercent(t.pct, 0) +
                         " of samples) — clocks were lowered for power or heat, so timings "
                         "vary; check cooling and power limits."});
      break;
    }
  }
  // "write" counts records the log could not take (disk full, I/O error); the other sources are
  // buffers that were full.
  uint64_t dropped = 0, unwritten = 0;
  for (const auto& [source, n] : r.collection.dropped)
    (source == "write" ? unwritten : dropped) += n;
  if (unwritten > 0) {
    out.push_back({"dropped_write", "",
                   formatCount(unwritten) +
                       " records could not be written to the log (a full disk or an I/O error; "
                       "the program's stderr named it) — counts and totals in this report are "
                       "low; free space or point log_path at another disk."});
  }
  if (dropped > 0) {
    out.push_back({"dropped", "",
                   formatCount(dropped) +
                       " records were dropped because buffers were full — counts and totals "
                       "in this report are low; give gpufl larger buffers."});
  }
}

}  // namespace

std::string occupancyAdvice(const KernelGroup& g, const DeviceInfo* dev) {
  const Occupancy& o = *g.def.occupancy;
  std::string head = "occupancy " + formatPercent(o.occupancy * 100) + " is limited by ";
  switch (o.limiting) {
    case LimitingResource::Registers:
      return head + "registers (" + std::to_string(g.def.num_regs) +
             " per thread) — cap them with __launch_bounds__(maxThreads, minBlocksPerSM) or "
             "-maxrregcount, or keep fewer values live.";
    case LimitingResource::SharedMem:
      return head + "shared memory (" +
             formatBytes(static_cast<uint64_t>(g.def.static_shared_bytes)) + " static + " +
             formatBytes(static_cast<uint64_t>(g.def.dyn_shared_bytes)) +
             " dynamic per block) — size shared arrays to what a block uses (dynamic shared memory "
             "set at launch), use smaller tiles, or raise the shared-memory carveout.";
    case LimitingResource::Blocks:
      return head + "the blocks-per-SM cap (blocks of " + std::to_string(g.block.count()) +
             " threads) — use bigger blocks (128-256 threads) so each block brings more warps.";
    case LimitingResource::Warps: {
      std::string budget = dev && dev->max_threads_per_sm > 0
                               ? " (" + std::to_string(dev->max_threads_per_sm) + " threads per SM)"
                               : "";
      return head + "warps: blocks of " + std::to_string(g.block.count()) +
             " threads do not divide the SM's thread budget" + budget +
             " — pick a block size that divides it.";
    }
    case LimitingResource::None:
      break;
  }
  return "";
}

void addHints(Report& r) {
  r.hints.clear();
  timingHints(r, r.hints);
  profileHints(r, r.hints);
  groupHints(r, r.hints);
  machineHints(r, r.hints);
}

}  // namespace gpufl::report
