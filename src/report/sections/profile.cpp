// Section "Profile / SASS Analysis", for the deep engines: SASS metric totals, divergence,
// per-function stall/instruction/memory blocks with hot instructions and hints, and range-profiler
// counters.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "core/demangle.hpp"
#include "report/sections/section.hpp"
#include "report/text/short_names.hpp"

namespace gpufl::report::sections {
namespace {

constexpr size_t kBlockWidth = 66;    // the dashes under a function's name
constexpr size_t kMaxStallRows = 10;  // the rest are summed into "Other"
constexpr size_t kMaxRanges = 50;
constexpr size_t kMetricNameWidth = 52;  // range counter names; values right-aligned after
// A hot instruction below this share of its function's samples (or warp instructions) says nothing
// about where time goes: a prologue instruction at 0.1% is noise.
constexpr double kMinHotSharePct = 1.0;

std::string u(uint64_t v) {
  return std::to_string(v);
}

// "      Warp Insts:                 12,042,560": the value right-aligned to column 44.
void blockField(TextOut& out, std::string_view label, std::string_view value) {
  out.line("      " + padRight(std::string(label) + ":", 20) + padLeft(value, 18));
}

std::string warpEfficiency(const SassTotals& s, int warp) {
  return padLeft(formatFixed(s.threadsPerWarp(), 1), 6) + " / " + std::to_string(warp) + " (" +
         formatPercent(s.warpEfficiencyPct(warp)) + ")";
}

void stallRow(TextOut& out, const std::string& label, uint64_t n, uint64_t total) {
  double pct = total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0;
  auto bars = static_cast<size_t>(std::lround(pct / 5.0));
  if (bars == 0 && n > 0) bars = 1;
  out.line("      " + padRight(label, 28) + padLeft(formatCount(n), 8) +
           padLeft(formatPercent(pct), 8) + "  " + std::string(bars, '#'));
}

double hotSharePct(const FunctionProfile& f, const HotInstruction& h) {
  const uint64_t part = f.hot_by_samples ? h.samples : h.inst_executed;
  const uint64_t whole = f.hot_by_samples ? f.stall_samples : f.sass.inst_executed;
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

void hotInstructions(TextOut& out, const FunctionProfile& f) {
  size_t shown = 0;
  for (const HotInstruction& h : f.hot) shown += hotSharePct(f, h) >= kMinHotSharePct;
  if (shown == 0) return;
  out.line(f.hot_by_samples ? "    Hot Instructions (by stall samples):"
                            : "    Hot Instructions (by warp instructions):");
  for (const HotInstruction& h : f.hot) {
    if (hotSharePct(f, h) < kMinHotSharePct) continue;
    char pc[32];
    std::snprintf(pc, sizeof pc, "/*0x%llx*/", static_cast<unsigned long long>(h.pc));
    out.line("      " + padRight(pc, 12) + (h.sass.empty() ? "(no SASS text)" : h.sass));
    auto share = [](uint64_t part, uint64_t whole) {
      return formatPercent(whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole)
                                 : 0);
    };
    std::string detail;
    if (f.hot_by_samples) {
      detail = formatCount(h.samples) + " samples (" + share(h.samples, f.stall_samples) + ")";
      if (!h.top_stall.empty()) detail += ", mostly " + h.top_stall;
    } else {
      detail = formatCount(h.inst_executed) + " warp insts (" +
               share(h.inst_executed, f.sass.inst_executed) + ")";
      double per_warp = h.inst_executed ? static_cast<double>(h.thread_inst_executed) /
                                              static_cast<double>(h.inst_executed)
                                        : 0;
      if (h.inst_executed) detail += ", " + formatFixed(per_warp, 1) + " threads/warp";
    }
    if (!h.source.empty()) detail += ", " + h.source;
    out.wrapped(detail, kRuleWidth, std::string(18, ' '), std::string(18, ' '));
  }
}

void functionBlock(TextOut& out, const FunctionProfile& f, int warp, const KernelNames& names) {
  std::string name = names(f.name);
  if (f.stall_samples) name += "  (" + formatCount(f.stall_samples) + " stall samples)";
  out.line();
  out.line("  " + name);
  out.dashes(kBlockWidth);
  if (!f.stalls.empty()) {
    out.line("    Stalls:");
    if (f.patched_samples) {
      out.wrapped("samples: " + patchedSamplesText(f.patched_samples, f.stall_samples) + ")",
                  kRuleWidth, "      (", "       ");
    }
    uint64_t other = 0;
    for (size_t i = 0; i < f.stalls.size(); ++i) {
      if (i < kMaxStallRows) {
        stallRow(out, f.stalls[i].label, f.stalls[i].samples, f.stall_samples);
      } else {
        other += f.stalls[i].samples;
      }
    }
    if (other) stallRow(out, "Other", other, f.stall_samples);
  }
  if (f.has_sass) {
    out.line("    Instructions:");
    blockField(out, "Warp Insts", formatCount(f.sass.inst_executed));
    blockField(out, "Thread Insts", formatCount(f.sass.thread_inst_executed));
    out.line("      " + padRight("Warp Efficiency:", 26) + warpEfficiency(f.sass, warp));
    out.line("    Memory:");
    blockField(out, "Global Sectors", formatCount(f.sass.sectors_global));
    blockField(out, "Ideal Sectors", formatCount(f.sass.sectors_global_ideal));
    blockField(out, "Memory Efficiency",
               f.sass.sectors_global ? formatPercent(f.sass.memoryEfficiencyPct())
                                     : "n/a (no global access)");
  }
  if (!f.hot.empty()) hotInstructions(out, f);
  if (!f.hints.empty()) {
    out.line("    Hints:");
    for (const Hint& h : f.hints) out.wrapped(h.text, 2 + kBlockWidth, "      * ", "        ");
  }
}

bool endsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// A range-profiler counter with its unit, read off the metric name (Nsight Compute's naming:
// "<unit>.<rollup>[.<submetric>]"): durations in ns, bytes, rates, percentages, cycles; else a
// count.
std::string metricValue(std::string_view name, double v) {
  auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  auto count = [](double x) {
    if (x >= 0 && x < 1e15 && x == std::floor(x)) return formatCount(static_cast<uint64_t>(x));
    return formatFixed(x, 3);
  };
  if (v < 0 || !std::isfinite(v)) return formatFixed(v, 3);
  if (has(".pct") || has("pct_of_peak") || endsWith(name, ".ratio"))
    return has(".ratio") ? formatFixed(v, 3) : formatFixed(v, 2) + " %";
  if (has("per_second")) return has("bytes") ? formatRate(v) : count(v) + " /s";
  if (has("time_duration") || has("__time")) return formatDuration(v);
  if (has("bytes")) return formatBytes(static_cast<uint64_t>(v + 0.5));
  if (has("cycles")) return count(v) + " cycles";
  if (has("sectors")) return count(v) + " sectors";
  if (has("inst")) return count(v) + " inst";
  return count(v);
}

void ranges(TextOut& out, const ProfileSummary& p, const ScopeSummary& scopes) {
  out.line();
  out.line("  Range Profiler Counters:");
  bool any_scope_range = false;
  for (const RangeCounterRow& row : p.ranges) any_scope_range |= row.kernel.empty();
  if (any_scope_range) {
    // Measured on the H200: CUPTI launches a ~80 us WaitNs kernel inside every profiled range.
    out.line(
        "    (per scope, over the whole range: gpu__time_duration includes CUPTI's own ~80 us");
    out.line(
        "    WaitNs kernel per range, so short scopes read long; rates average over idle time.");
    out.line(
        "    A scope profiled N times: .sum counters are totals, the others time-weighted means)");
  } else {
    // Measured on the H200: a per-kernel range lasts its kernel (within ~1 us of ncu's time).
    out.line("    (one range per kernel launch in the scope: the kernel alone, no WaitNs");
    out.line("    inside. A kernel profiled N times: .sum counters are totals, the others");
    // Measured there too: short kernels' DRAM bytes matched neither ncu cache mode.
    out.line("    time-weighted means. DRAM bytes of short kernels depend on what L2 held");
    out.line("    when they started)");
  }
  size_t shown = 0;
  for (const RangeCounterRow& row : p.ranges) {
    if (shown++ == kMaxRanges) {
      out.line("    ... " + formatCount(p.ranges.size() - kMaxRanges) +
               " more ranges (see --json)");
      break;
    }
    if (!row.kernel.empty()) {  // one launch per range: no WaitNs, no idle time inside
      out.fitted(row.range + "  kernel " + readableKernelName(row.kernel) + "  (" +
                     formatCount(row.instances) + (row.instances == 1 ? " launch)" : " launches)"),
                 kRuleWidth, "    ", "      ");
    } else {
      out.line("    " + row.range +
               (row.instances > 1 ? "  (" + formatCount(row.instances) + " ranges)" : ""));
    }
    // The scope's own kernels from the trace: their summed GPU time is what the range's
    // gpu__time_duration holds apart from CUPTI's WaitNs kernel and idle time.
    if (const ScopeRow* s = findScopeRow(scopes, row.path);
        row.kernel.empty() && s != nullptr && s->kernels_incl > 0) {
      out.fitted("kernels in this scope (trace, all calls): " + formatCount(s->kernels_incl) +
                     ", " + formatDuration(static_cast<double>(s->gpu_incl_ns)) + " GPU time in " +
                     formatCount(s->calls) + " call" + (s->calls == 1 ? "" : "s"),
                 kRuleWidth, "      ", "        ");
    }
    // A metric name is an identifier, never cut: one too long for its column has the value on
    // the line under it, in the value column.
    for (const auto& [name, value] : row.metrics) {
      if (displayWidth(name) > kMetricNameWidth) out.line("      " + name);
      out.line("      " +
               padRight(displayWidth(name) > kMetricNameWidth ? "" : name, kMetricNameWidth) +
               padLeft(metricValue(name, value), 19));
    }
  }
}

// The profiled functions in the order of the rest of the report (kernel groups by GPU time), those
// with no traced launch after them in their own order.
std::vector<const FunctionProfile*> inKernelOrder(const Report& r) {
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < r.kernels.groups.size(); ++i) {
    rank.try_emplace(r.kernels.groups[i].mangled, i);
    rank.try_emplace(r.kernels.groups[i].name, i);
  }
  std::vector<const FunctionProfile*> out;
  for (const FunctionProfile& f : r.profile.functions) out.push_back(&f);
  auto of = [&](const FunctionProfile* f) {
    if (auto it = rank.find(f->func); it != rank.end()) return it->second;
    if (auto it = rank.find(f->name); it != rank.end()) return it->second;
    return r.kernels.groups.size();
  };
  std::stable_sort(out.begin(), out.end(), [&](const FunctionProfile* a, const FunctionProfile* b) {
    return of(a) < of(b);
  });
  return out;
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  const ProfileSummary& p = r.profile;
  out.banner("Profile / SASS Analysis");
  if (!p.has_sass && !p.has_pc && p.ranges.empty()) {
    out.line(std::string("  No SASS metrics or PC samples recorded (engine: ") +
             engineName(r.session.engine) + ").");
    return;
  }
  if (p.has_sass) {
    out.line();
    out.line("  SASS Metrics Summary:");
    out.line("  " + padRight("Metric", 48) + padLeft("Total", 14));
    out.dashes(62);
    out.line("  " + padRight("smsp__sass_thread_inst_executed", 48) +
             padLeft(u(p.sass.thread_inst_executed), 14));
    out.line("  " + padRight("smsp__sass_inst_executed", 48) +
             padLeft(u(p.sass.inst_executed), 14));
    out.line("  " + padRight("smsp__sass_sectors_mem_global", 48) +
             padLeft(u(p.sass.sectors_global), 14));
    out.line("  " + padRight("smsp__sass_sectors_mem_global_ideal", 48) +
             padLeft(u(p.sass.sectors_global_ideal), 14));
    out.line();
    out.line("  Thread Divergence Analysis:");
    out.field(4, "Warp Instructions", 22, u(p.sass.inst_executed));
    out.field(4, "Thread Instructions", 22, u(p.sass.thread_inst_executed));
    out.field(4, "Avg Threads/Warp", 22,
              formatFixed(p.sass.threadsPerWarp(), 1) + " / " + std::to_string(p.warp_size));
    out.field(4, "Warp Efficiency", 22, formatPercent(p.sass.warpEfficiencyPct(p.warp_size)));
    out.line();
    out.line("  Global Memory Coalescing:");
    out.field(4, "Global Sectors", 22, u(p.sass.sectors_global));
    out.field(4, "Ideal Sectors", 22, u(p.sass.sectors_global_ideal));
    out.field(4, "Memory Efficiency", 22,
              p.sass.sectors_global ? formatPercent(p.sass.memoryEfficiencyPct())
                                    : "n/a (no global access)");
  }
  const std::vector<const FunctionProfile*> functions = inKernelOrder(r);
  std::vector<std::string> function_names;
  for (const FunctionProfile* f : functions) function_names.push_back(f->name);
  const KernelNames names(function_names, 48);
  for (const FunctionProfile* f : functions) functionBlock(out, *f, p.warp_size, names);
  if (!p.ranges.empty()) ranges(out, p, r.scopes);
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "profile", r.profile, r);
}

}  // namespace

extern const Section kProfile = {.name = "profile", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
