// Section "Kernels": the execution summary, and when kernels ran, the top kernel groups by GPU time
// and their details (JSON: "kernels" and "kernel_groups").
#include <algorithm>

#include "core/output_width.hpp"
#include "report/sections/section.hpp"
#include "report/text/short_names.hpp"
#include "report/text/text_table.hpp"

namespace gpufl::report::sections {
namespace {
constexpr size_t kTopNameWidth = 40;
constexpr size_t kDetailNameWidth = 75;

std::string dur(double ns) {
  return formatDuration(ns);
}

size_t topCount(const Report& r, const ReportOptions& o) {
  return std::min(r.kernels.groups.size(), static_cast<size_t>(std::max(o.top_n, 0)));
}

// "1.74 s", with " (approx.)" when the percentile came from the histogram.
std::string stat(double ns, bool approx) {
  return dur(ns) + (approx ? " (approx.)" : "");
}

void summary(TextOut& out, const Report& r) {
  const KernelSummary& k = r.kernels;
  out.banner("Kernel Execution Summary");
  const std::string faulted = faultedKernelsNote(r);
  if (k.launches == 0) {
    out.line("  No kernels recorded.");
    if (!faulted.empty()) out.wrapped(faulted, kRuleWidth, "  ", "  ");
    return;
  }
  if (!faulted.empty()) out.wrapped(faulted, kRuleWidth, "  ", "  ");
  out.field(2, "Total Kernels", kTopLabelWidth, formatCount(k.launches));
  out.field(2, "Unique Kernels", kTopLabelWidth, formatCount(k.unique_functions));
  if (k.groups.size() != k.unique_functions)
    out.field(2, "Kernel Shapes", kTopLabelWidth, formatCount(k.groups.size()));
  out.field(2, "Total GPU Time", kTopLabelWidth, dur(static_cast<double>(k.total_ns)));
  std::string busy =
      r.session.duration_ns > 0 ? formatPercent(k.busy_pct) : "n/a (session duration unknown)";
  if (k.busy_clipped) busy += " (approx.)";
  out.field(2, "GPU Busy", kTopLabelWidth, busy);

  // With instrumentation on some launches, the clean (uninstrumented) figures go beside the overall
  // ones.
  bool clean = k.instrumented > 0 && k.clean.count > 0;
  auto row = [&](const char* label, double all, double clean_value, bool pct) {
    std::string v = stat(all, pct && k.all.approximate);
    if (clean) v = padRight(v, 20) + "clean " + stat(clean_value, pct && k.clean.approximate);
    out.field(2, label, kTopLabelWidth, v);
  };
  row("Avg Duration", k.all.avg_ns, k.clean.avg_ns, false);
  row("Median Duration", k.all.median_ns, k.clean.median_ns, true);
  row("P90 Duration", k.all.p90_ns, k.clean.p90_ns, true);
  row("P99 Duration", k.all.p99_ns, k.clean.p99_ns, true);
  row("Min Duration", static_cast<double>(k.all.min_ns), static_cast<double>(k.clean.min_ns),
      false);
  row("Max Duration", static_cast<double>(k.all.max_ns), static_cast<double>(k.clean.max_ns),
      false);
  if (k.instrumented > 0) {
    std::string note = formatCount(k.instrumented) + " of " + formatCount(k.launches) +
                       " launches ran under instrumentation (" + engineName(r.session.engine) +
                       "): their durations include profiling overhead";
    note += clean ? "; clean figures come from the other " + formatCount(k.clean.count) + "."
                  : "; no uninstrumented launches to compare.";
    out.wrapped(note, kRuleWidth, "  " + padRight("Instrumented:", kTopLabelWidth),
                std::string(2 + kTopLabelWidth, ' '));
  }
}

// The names of the first `n` kernel groups, shortened together in each table.
std::vector<std::string> topNames(const Report& r, size_t n) {
  std::vector<std::string> names;
  for (size_t i = 0; i < n && i < r.kernels.groups.size(); ++i)
    names.push_back(r.kernels.groups[i].name);
  return names;
}

// The table fitted to the output width (text/text_table): the name last, given the room the
// figures leave; Min, then Max, then Avg left out (and named) before a name gets narrower than
// kTopNameWidth (the report's first table is read for its names).
void topKernels(TextOut& out, const Report& r, const ReportOptions& o) {
  size_t n = topCount(r, o);
  out.banner("Top " + std::to_string(n) + (n == 1 ? " Kernel" : " Kernels") + " by Total GPU Time");
  if (n == 0) {
    out.line("  No kernels recorded.");
    return;
  }
  TextTable table({{"#", false, 0},
                   {"Calls", true, 0},
                   {"Total", true, 0},
                   {"Avg", true, 1},
                   {"Min", true, 3},
                   {"Max", true, 2}},
                  "Kernel");
  table.ruleUnderHeaders();
  table.keepNamesAtLeast(kTopNameWidth);
  for (size_t i = 0; i < n; ++i) {
    const KernelGroup& g = r.kernels.groups[i];
    const DurationSummary& d = g.durations;
    table.addRow(
        {std::to_string(i + 1), formatCount(d.count), dur(static_cast<double>(d.total_ns)),
         dur(d.avg_ns), dur(static_cast<double>(d.min_ns)), dur(static_cast<double>(d.max_ns))},
        g.name,
        g.defined ? "grid " + formatDim3(g.grid) + "  block " + formatDim3(g.block)
                  : std::string("launch shape unknown (no kernel_def)"));
  }
  for (const std::string& l : table.render(o.wide_names ? kUnlimitedWidth : o.width)) out.line(l);
}

void details(TextOut& out, const Report& r, const ReportOptions& o) {
  size_t n = topCount(r, o);
  out.banner("Kernel Details (Top " + std::to_string(n) + ")");
  if (n == 0) {
    out.line("  No kernels recorded.");
    return;
  }
  const KernelNames names(topNames(r, n), kDetailNameWidth, o.wide_names);
  for (size_t i = 0; i < n; ++i) {
    const KernelGroup& g = r.kernels.groups[i];
    const KernelDef& def = g.def;
    std::string name = names(g.name);
    out.line();
    out.line("  " + name);
    out.line("  " + std::string(displayWidth(name), '='));
    out.field(4, "Grid", kSubLabelWidth,
              g.defined ? formatDim3(g.grid) : "unknown (no kernel_def)");
    out.field(4, "Block", kSubLabelWidth,
              g.defined ? formatDim3(g.block) : "unknown (no kernel_def)");
    if (def.occupancy) {
      const Occupancy& occ = *def.occupancy;
      out.field(4, "Occupancy", kSubLabelWidth, formatPercent(occ.occupancy * 100));
      out.field(4, "Reg Occupancy", kSubLabelWidth, formatPercent(occ.reg_occupancy * 100));
      out.field(4, "SMem Occupancy", kSubLabelWidth, formatPercent(occ.smem_occupancy * 100));
      out.field(4, "Warp Occupancy", kSubLabelWidth, formatPercent(occ.warp_occupancy * 100));
      out.field(4, "Block Occupancy", kSubLabelWidth, formatPercent(occ.block_occupancy * 100));
      out.field(4, "Limiting Resource", kSubLabelWidth, limitingResourceName(occ.limiting));
    } else {
      out.field(4, "Occupancy", kSubLabelWidth, "n/a (not computed)");
    }
    out.field(4, "Registers/Thread", kSubLabelWidth, std::to_string(def.num_regs));
    out.field(4, "Shared Memory", kSubLabelWidth,
              formatBytes(static_cast<uint64_t>(def.dyn_shared_bytes)) + " dyn + " +
                  formatBytes(static_cast<uint64_t>(def.static_shared_bytes)) + " static");
    out.field(4, "Local Memory", kSubLabelWidth,
              formatBytes(static_cast<uint64_t>(def.local_bytes)) + "/thread" +
                  (def.local_bytes > 0 ? " (spills or local arrays)" : ""));
    if (def.carveout_pct)  // the occupancy above is computed for this carveout
      out.field(4, "SMem Carveout", kSubLabelWidth,
                std::to_string(*def.carveout_pct) + "% of the SM's shared memory (requested)");
    if (def.occupancy && def.occupancy->max_active_blocks > 0)
      out.field(4, "Max Blocks/SM", kSubLabelWidth,
                std::to_string(def.occupancy->max_active_blocks));
    if (def.waves)
      out.field(4, "Waves", kSubLabelWidth, formatFixed(*def.waves, *def.waves < 0.1 ? 4 : 2));
    const DurationSummary& d = g.durations;
    bool approx = d.approximate;
    out.field(4, "Durations", kSubLabelWidth,
              "median " + dur(d.median_ns) + "  p90 " + dur(d.p90_ns) + "  p99 " + dur(d.p99_ns) +
                  (approx ? " (approx.)" : ""));
    if (g.instrumented > 0)
      out.field(4, "Instrumented", kSubLabelWidth,
                formatCount(g.instrumented) + " of " + formatCount(d.count) +
                    " launches (durations inflated)");
  }
}

void writeText(TextOut& out, const Report& r, const ReportOptions& o) {
  summary(out, r);
  // Without kernels the summary's "No kernels recorded." says it all: no empty "Top N" tables.
  if (r.kernels.groups.empty()) return;
  out.line();
  topKernels(out, r, o);
  out.line();
  details(out, r, o);
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "kernels", r.kernels, r);
  json::put(w, "kernel_groups", r.kernels.groups, r);
}

}  // namespace

extern const Section kKernels = {.name = "kernels", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
