#include "report/aggregate/hints.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "report/aggregate/drop_advice.hpp"
#include "report/aggregate/kernel_origin.hpp"
#include "report/text/format.hpp"
#include "report/text/short_names.hpp"

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

// What to change about a profiled function: `own` for the user's code, the library's inputs for
// a library kernel.
std::string fixFor(const FunctionProfile& f, const std::string& own) {
  const KernelOrigin origin = kernelOrigin(f.name, f.func);
  if (origin == KernelOrigin::User) return own;
  return "It is a " + std::string(originLabel(origin)) + " kernel: " + libraryAdvice(origin) + ".";
}

void functionHints(const Report& r, FunctionProfile& f) {
  if (f.has_sass && f.sass.sectors_global > 0 &&
      f.sass.memoryEfficiencyPct() < kLowMemoryEfficiencyPct) {
    f.hints.push_back({"memory_efficiency", f.name,
                       "Low memory efficiency (" + formatFixed(f.sass.memoryEfficiencyPct(), 0) +
                           "%). " +
                           fixFor(f, "Make accesses coalesced, or tile through shared memory.")});
  }
  if (f.has_sass && f.sass.inst_executed > 0 &&
      f.sass.warpEfficiencyPct(r.profile.warp_size) < kLowWarpEfficiencyPct) {
    f.hints.push_back(
        {"divergence", f.name,
         "Low warp efficiency (" + formatFixed(f.sass.warpEfficiencyPct(r.profile.warp_size), 0) +
             "%, " + formatFixed(f.sass.threadsPerWarp(), 1) + " of " +
             std::to_string(r.profile.warp_size) + " threads active). " +
             fixFor(f, "Group data so a warp branches together, or use predicated code.")});
  }
  uint64_t long_scoreboard = 0;
  for (const StallCount& s : f.stalls)
    if (s.label.rfind("Long Scoreboard", 0) == 0) long_scoreboard += s.samples;
  if (f.stall_samples > 0 && 100.0 * long_scoreboard / f.stall_samples >= 40.0) {
    f.hints.push_back({"memory_latency", f.name,
                       "Warps mostly wait on memory (Long Scoreboard " +
                           formatFixed(100.0 * long_scoreboard / f.stall_samples, 0) +
                           "% of samples). " +
                           fixFor(f, "Improve locality, or raise occupancy to hide latency.")});
  }
}

// Library kernels: one hint per library, with its share of GPU time, instead of per-kernel advice
// the user cannot act on (a cuBLAS kernel's registers are the library's choice).
void libraryHints(const Report& r, const std::map<KernelOrigin, std::pair<int, int64_t>>& seen,
                  std::vector<Hint>& out) {
  for (const auto& [origin, tally] : seen) {
    const auto& [groups, ns] = tally;
    std::string share = r.kernels.total_ns > 0
                            ? " (" +
                                  formatPercent(100.0 * static_cast<double>(ns) /
                                                static_cast<double>(r.kernels.total_ns)) +
                                  " of GPU time)"
                            : "";
    out.push_back({"library", std::string(originLabel(origin)),
                   formatCount(static_cast<uint64_t>(groups)) + " of the top kernels" + share +
                       (groups == 1 ? " is " : " are ") + std::string(originLabel(origin)) +
                       " kernels. Change the calls, not the kernels: " + libraryAdvice(origin) +
                       "."});
  }
}

void groupHints(const Report& r, std::vector<Hint>& out) {
  const KernelSummary& k = r.kernels;
  std::map<KernelOrigin, std::pair<int, int64_t>> libraries;  // groups, GPU time
  std::vector<std::string> group_names;
  for (size_t i = 0; i < k.groups.size() && i < kHintGroups; ++i)
    group_names.push_back(k.groups[i].name);
  const KernelNames names(group_names, kNameWidth);
  for (size_t i = 0; i < k.groups.size() && i < kHintGroups; ++i) {
    const KernelGroup& g = k.groups[i];
    if (k.total_ns > 0 && 100.0 * g.durations.total_ns / k.total_ns < kHintGroupMinSharePct)
      continue;
    const KernelOrigin origin = kernelOrigin(g.name, g.mangled);
    if (origin != KernelOrigin::User) {
      libraries[origin].first += 1;
      libraries[origin].second += g.durations.total_ns;
    }
    if (!g.defined) continue;  // nothing is known of its launch to advise on
    const std::string shape = formatDim3(g.grid) + "x" + formatDim3(g.block) + ": ";
    const std::string who = names(g.name) + " " + shape;
    const DeviceInfo* dev = deviceOf(r, g.def.device);
    if (origin == KernelOrigin::User && g.def.occupancy &&
        g.def.occupancy->occupancy < kFullOccupancy) {
      std::string advice = occupancyAdvice(g, dev);
      if (!advice.empty()) out.push_back({"occupancy", g.name, who + advice});
    }
    if (g.def.local_bytes > 0 && origin == KernelOrigin::User) {
      out.push_back(
          {"local_memory", g.name,
           who + formatBytes(static_cast<uint64_t>(g.def.local_bytes)) +
               " of local memory per thread (register spills or local arrays, as slow as global "
               "memory). Check ptxas -v; keep fewer values live or raise the register cap."});
    }
    std::string fill = gridFillAdvice(g, dev);
    // A library's template instances share one hint (the user's own kernels are each named).
    if (!fill.empty())
      out.push_back(
          {"small_grid", g.name, who + fill, origin == KernelOrigin::User ? "" : shape + fill});
  }
  libraryHints(r, libraries, out);
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
                       " of the session. Capture the launch sequence in a CUDA graph, "
                       "fuse small kernels, or give each launch more work."});
  } else if (timed && k.busy_pct < kIdleGpuBusyPct) {
    out.push_back({"gpu_idle", "",
                   "The GPU ran kernels only " + formatPercent(k.busy_pct) +
                       " of the session: time went to host code, copies or synchronisation. "
                       "Overlap them (streams, async copies) or move more work to the GPU."});
  }
}

// Per-function hints, and their session-wide summaries with the figures behind them.
void profileHints(Report& r, std::vector<Hint>& out) {
  std::vector<std::string> function_names;
  for (const FunctionProfile& f : r.profile.functions) function_names.push_back(f.name);
  const KernelNames names(function_names, kNameWidth);
  for (FunctionProfile& f : r.profile.functions) {
    functionHints(r, f);
    std::string name = names(f.name);
    for (const Hint& h : f.hints) {
      if (h.kind == "memory_efficiency") {
        out.push_back({h.kind, f.name,
                       name + ": memory efficiency " + formatPercent(f.sass.memoryEfficiencyPct()) +
                           " (" + formatCount(f.sass.sectors_global) + " global sectors vs " +
                           formatCount(f.sass.sectors_global_ideal) + " ideal" +
                           wasteFactor(f.sass) + "). " +
                           fixFor(f,
                                  "Make adjacent threads access adjacent addresses, or stage "
                                  "reused data in shared memory.")});
      } else if (h.kind == "divergence") {
        out.push_back({h.kind, f.name,
                       name + ": warp efficiency " +
                           formatPercent(f.sass.warpEfficiencyPct(r.profile.warp_size)) +
                           ", so threads of a warp diverge. " +
                           fixFor(f, "Sort or bin data so a warp takes one path.")});
      }
    }
  }
}

void machineHints(const Report& r, std::vector<Hint>& out) {
  const TransferSummary& t = r.transfers;
  if (t.pageable_copies > 0 && t.pageable_bytes >= (uint64_t{1} << 20)) {
    out.push_back({"pageable_memory", "",
                   formatCount(t.pageable_copies) + " copies (" + formatBytes(t.pageable_bytes) +
                       ") used pageable host memory. Pin host buffers (cudaMallocHost, "
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
                         " of samples): clocks were lowered for power or heat, so timings "
                         "vary. Check cooling and power limits."});
      break;
    }
  }
  // "write" counts records the log could not take (disk full, I/O error); "untimed_kernels" kernel
  // records CUPTI delivered without timestamps (all of a faulted context's); buffers that were full
  // are drop_advice's.
  uint64_t unwritten = 0, untimed = 0;
  for (const auto& [source, n] : r.collection.dropped) {
    if (source == "write") unwritten += n;
    if (source == "untimed_kernels") untimed += n;
  }
  if (const std::string faulted = faultedKernelsNote(r); !faulted.empty()) {
    out.push_back({"context_faulted", "", faulted});
  } else if (untimed > 0) {
    out.push_back({"untimed_kernels", "",
                   formatCount(untimed) +
                       " kernel records came from CUPTI without timestamps and are left out of "
                       "the kernel tables (the Collection Notes say more)."});
  }
  if (unwritten > 0) {
    out.push_back({"dropped_write", "",
                   formatCount(unwritten) +
                       " records could not be written to the log (a full disk or an I/O error; "
                       "the program's stderr named it) — counts and totals in this report are "
                       "low; free space or point log_path at another disk."});
  }
  if (std::string advice = droppedAdvice(r.collection.dropped); !advice.empty())
    out.push_back({"dropped", "", std::move(advice)});
}

}  // namespace

namespace {

// The occupancy of `o` with its limiting resource relieved: the next limiter's figure (per-resource
// figures of 0 are unknown and limit nothing).
double occupancyWithoutLimiter(const Occupancy& o) {
  double best = 1.0;
  auto other = [&](LimitingResource r, double v) {
    if (r != o.limiting && v > 0) best = std::min(best, v);
  };
  other(LimitingResource::Registers, o.reg_occupancy);
  other(LimitingResource::SharedMem, o.smem_occupancy);
  other(LimitingResource::Warps, o.warp_occupancy);
  other(LimitingResource::Blocks, o.block_occupancy);
  return best;
}

const char* resourceWords(LimitingResource r) {
  switch (r) {
    case LimitingResource::Registers:
      return "registers";
    case LimitingResource::SharedMem:
      return "shared memory";
    case LimitingResource::Warps:
      return "warps";
    case LimitingResource::Blocks:
      return "the blocks-per-SM cap";
    case LimitingResource::None:
      break;
  }
  return "none";
}

// The other resources that hold occupancy exactly where the limiter does ("shared memory").
std::string tiedLimiters(const Occupancy& o) {
  std::string tied;
  auto add = [&](LimitingResource r, double v) {
    if (r == o.limiting || v <= 0 || v > o.occupancy + 1e-9) return;
    tied += (tied.empty() ? "" : " and ") + std::string(resourceWords(r));
  };
  add(LimitingResource::Registers, o.reg_occupancy);
  add(LimitingResource::SharedMem, o.smem_occupancy);
  add(LimitingResource::Warps, o.warp_occupancy);
  add(LimitingResource::Blocks, o.block_occupancy);
  return tied;
}

std::string limiterDetail(const KernelGroup& g, const DeviceInfo* dev) {
  const Occupancy& o = *g.def.occupancy;
  switch (o.limiting) {
    case LimitingResource::Registers:
      return "registers (" + std::to_string(g.def.num_regs) + " per thread)";
    case LimitingResource::SharedMem:
      return "shared memory (" + formatBytes(static_cast<uint64_t>(g.def.static_shared_bytes)) +
             " static + " + formatBytes(static_cast<uint64_t>(g.def.dyn_shared_bytes)) +
             " dynamic per block)";
    case LimitingResource::Blocks:
      return "the blocks-per-SM cap (blocks of " + std::to_string(g.block.count()) + " threads)";
    case LimitingResource::Warps:
      return "warps (blocks of " + std::to_string(g.block.count()) + " threads" +
             (dev && dev->max_threads_per_sm > 0
                  ? ", " + std::to_string(dev->max_threads_per_sm) + " threads per SM"
                  : std::string()) +
             ")";
    case LimitingResource::None:
      break;
  }
  return "";
}

// What to change in the user's own code to relieve the limiter.
std::string userFix(const KernelGroup& g) {
  switch (g.def.occupancy->limiting) {
    case LimitingResource::Registers:
      return "cap registers with __launch_bounds__ or -maxrregcount, or keep fewer values live";
    case LimitingResource::SharedMem:
      return "use smaller tiles, size shared arrays to what a block uses, or raise the carveout";
    case LimitingResource::Blocks:
      return "use bigger blocks (128-256 threads)";
    case LimitingResource::Warps:
      return "pick a block size that divides the SM's thread budget";
    case LimitingResource::None:
      break;
  }
  return "";
}

// A library's kernels of one launch shape given the same advice (template instances, whose names
// differ only in template arguments), or hints equal word for word: said once, with how many
// kernels they cover.
void mergeRepeats(std::vector<Hint>& hints) {
  std::vector<Hint> merged;
  std::vector<int> repeats;
  for (Hint& h : hints) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const Hint& m) {
      return m.text == h.text || (!h.key.empty() && m.kind == h.kind && m.key == h.key);
    });
    if (same != merged.end()) {
      ++repeats[static_cast<size_t>(same - merged.begin())];
      continue;
    }
    merged.push_back(std::move(h));
    repeats.push_back(1);
  }
  for (size_t i = 0; i < merged.size(); ++i)
    if (repeats[i] > 1)
      merged[i].text += " The same holds for " + std::to_string(repeats[i] - 1) +
                        (repeats[i] == 2 ? " more kernel" : " more kernels") +
                        " with this launch shape.";
  hints = std::move(merged);
}

}  // namespace

std::string gridFillAdvice(const KernelGroup& g, const DeviceInfo* dev) {
  if (!g.defined || !g.def.waves || *g.def.waves <= 0) return "";
  const double waves = *g.def.waves;
  const uint64_t blocks = g.grid.count();
  const uint64_t per_sm = g.def.occupancy && g.def.occupancy->max_active_blocks > 0
                              ? static_cast<uint64_t>(g.def.occupancy->max_active_blocks)
                              : 0;
  uint64_t sms = dev && dev->sm_count > 0 ? static_cast<uint64_t>(dev->sm_count) : 0;
  if (sms == 0 && per_sm > 0)  // waves = blocks / (SMs x blocks per SM)
    sms = static_cast<uint64_t>(static_cast<double>(blocks) / (waves * per_sm) + 0.5);
  const KernelOrigin origin = kernelOrigin(g.name, g.mangled);
  const std::string fix = origin == KernelOrigin::User
                              ? "Split the work into more, smaller blocks, or batch launches."
                              : "Give each call more work (larger or batched inputs).";
  const std::string n = formatCount(blocks) + (blocks == 1 ? " block" : " blocks");
  if (waves >= 1.0) {
    // Tail effect: a last wave that is mostly empty takes as long as a full one.
    const double whole = std::floor(waves), tail = waves - whole;
    if (whole > 2 || tail <= 0.001 || tail >= 0.5 || per_sm == 0 || sms == 0) return "";
    const uint64_t slots = per_sm * sms;
    return n + " make " + formatFixed(waves, 2) + " waves of " + formatCount(slots) + " (" +
           std::to_string(per_sm) + " per SM x " + std::to_string(sms) +
           " SMs). The last wave fills " + formatPercent(tail * 100, 0) +
           " of the slots but takes as long as a full one (tail effect). " +
           (origin == KernelOrigin::User
                ? "Size the grid to a multiple of " + formatCount(slots) + " blocks."
                : std::string("Change the problem size so its blocks fill whole waves."));
  }
  if (waves >= 0.75) return "";  // most block slots are in use
  if (sms == 0)
    return n + " fill " + formatPercent(waves * 100) + " of one wave, so few warps hide latency. " +
           fix;
  if (blocks < sms)
    return n + (blocks == 1 ? " runs on " : " run on ") + formatCount(sms) +
           " SMs: " + formatCount(sms - blocks) + " SMs get no block. " + fix;
  const uint64_t lo = blocks / sms, hi = (blocks + sms - 1) / sms;
  std::string each = lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  std::string capacity = per_sm > 0 ? " of the " + std::to_string(per_sm) + " it can hold" : "";
  std::string slots = per_sm > 0 ? " (" + formatPercent(waves * 100) + " of one wave)" : "";
  return n + " on " + formatCount(sms) + " SMs make one partial wave: each SM runs " + each +
         (hi == 1 ? " block" : " blocks") + capacity + slots + ", so few warps hide latency. " +
         fix;
}

std::string occupancyAdvice(const KernelGroup& g, const DeviceInfo* dev) {
  const Occupancy& o = *g.def.occupancy;
  if (o.limiting == LimitingResource::None) return "";
  const std::string head =
      "occupancy " + formatPercent(o.occupancy * 100) + " is limited by " + limiterDetail(g, dev);
  const KernelOrigin origin = kernelOrigin(g.name, g.mangled);
  if (origin != KernelOrigin::User)
    return head + ", the library's choice. Change the call: " + libraryAdvice(origin) + ".";
  const std::string tied = tiedLimiters(o);
  if (!tied.empty())
    return head + " and " + tied + " alike, so relieving " + resourceWords(o.limiting) +
           " alone gains nothing. Reduce " + tied + " too.";
  const double reachable = occupancyWithoutLimiter(o);
  if (reachable <= o.occupancy + 1e-9) return "";  // nothing to gain: offer nothing
  return head + ". To reach up to " + formatPercent(reachable * 100) + ", " + userFix(g) + ".";
}

void addHints(Report& r) {
  r.hints.clear();
  timingHints(r, r.hints);
  profileHints(r, r.hints);
  groupHints(r, r.hints);
  machineHints(r, r.hints);
  mergeRepeats(r.hints);
}

}  // namespace gpufl::report
