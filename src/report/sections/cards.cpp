// Section "Why Is This Kernel Slow": one card per top kernel group, joining what the other sections
// know about it (computed with the model: aggregate/card_stats.cpp; rules in docs/report.md).
#include <algorithm>

#include "report/sections/section.hpp"
#include "report/text/short_names.hpp"

namespace gpufl::report::sections {
namespace {

constexpr size_t kCardNameWidth = 60;
constexpr size_t kCardLabelWidth = 16;  // "    Occupancy:    "
const std::string kIndent(4 + kCardLabelWidth, ' ');

void field(TextOut& out, const char* label, const std::string& value) {
  out.wrapped(value, kRuleWidth, "    " + padRight(std::string(label) + ":", kCardLabelWidth),
              kIndent);
}

std::string launches(uint64_t n) {
  return formatCount(n) + (n == 1 ? " launch" : " launches");
}

void occupancy(TextOut& out, const Report& r, const KernelGroup& g) {
  const DeviceInfo* dev = nullptr;
  for (const DeviceInfo& d : r.session.devices)
    if (d.id == g.def.device) dev = &d;
  if (!dev && !r.session.devices.empty()) dev = &r.session.devices.front();
  if (!g.def.occupancy) {
    field(out, "Occupancy", "n/a (not computed for this launch)");
  } else {
    const Occupancy& o = *g.def.occupancy;
    std::string v = formatPercent(o.occupancy * 100);
    if (o.limiting == LimitingResource::None) {
      v += " (no limiting resource reported)";
    } else if (o.occupancy >= 0.995) {
      v += ", limited by " + std::string(limitingResourceName(o.limiting)) + " (already full)";
    } else {
      v += ", limited by " + std::string(limitingResourceName(o.limiting));
      if (o.max_active_blocks > 0) v += " (" + std::to_string(o.max_active_blocks) + " blocks/SM)";
    }
    field(out, "Occupancy", v);
  }
  std::string waves = g.def.waves ? formatFixed(*g.def.waves, *g.def.waves < 0.1 ? 4 : 2) : "n/a";
  if (!g.defined) return field(out, "Waves", "n/a (launch shape unknown: no kernel_def)");
  waves += " (" + formatCount(g.grid.count()) + (g.grid.count() == 1 ? " block" : " blocks");
  if (dev && dev->sm_count > 0) waves += " on " + std::to_string(dev->sm_count) + " SMs";
  field(out, "Waves", waves + ")");
}

void sass(TextOut& out, const Report& r, const KernelCard& c) {
  if (!c.sass) {
    field(out, "Memory Eff.", "n/a (no SASS metrics for this function)");
    return;
  }
  const CardSass& s = *c.sass;
  std::string shapes = s.function_groups > 1 ? " — all " + std::to_string(s.function_groups) +
                                                   " launch shapes of this function together"
                                             : "";
  if (s.totals.sectors_global == 0) {
    field(out, "Memory Eff.", "n/a (no global memory access)");
  } else {
    field(out, "Memory Eff.",
          formatPercent(s.memory_efficiency_pct) + " (" +
              formatCount(s.totals.sectors_global_ideal) + " ideal of " +
              formatCount(s.totals.sectors_global) + " global sectors" + shapes + ")");
  }
  field(out, "Warp Eff.",
        formatPercent(s.warp_efficiency_pct) + " (" + formatFixed(s.threads_per_warp, 1) + " of " +
            std::to_string(r.profile.warp_size) + " threads active per warp instruction)");
}

void stalls(TextOut& out, const KernelCard& c) {
  if (c.stall_samples == 0) {
    field(out, "Top Stalls", "n/a (no PC samples for this function)");
    return;
  }
  std::string v;
  for (const CardStall& s : c.stalls) {
    if (!v.empty()) v += ", ";
    v += s.label + " " + formatPercent(s.pct);
  }
  field(
      out, "Top Stalls",
      v + " (of " + formatCount(c.stall_samples) + " samples" +
          (c.patched_samples ? ", " + patchedSamplesText(c.patched_samples, c.stall_samples) : "") +
          ")");
}

// Global sectors are what L1 requested from L2, so the rate is an upper bound on DRAM traffic;
// above the DRAM peak it can only be L2 (and cache) throughput.
void bandwidth(TextOut& out, const KernelCard& c) {
  if (!c.bandwidth) {
    field(out, "Global Traffic", "n/a (needs SASS global sectors and a duration)");
    return;
  }
  const CardBandwidth& b = *c.bandwidth;
  std::string v = "~";
  v += formatRate(b.achieved_bps);
  if (b.peak_bps > 0) {
    v += b.peak_pct > 100.0 ? ", " + formatFixed(b.peak_pct / 100.0, 1) + "x the DRAM peak of " +
                                  formatRate(b.peak_bps) + ", so mostly L2 hits"
                            : " (" + formatPercent(b.peak_pct) + " of the " +
                                  formatRate(b.peak_bps) + " DRAM peak at most)";
  }
  // A bandwidth figure needs the SASS launches it divides by (aggregate/card_stats.cpp).
  v += "; " + formatBytes(static_cast<uint64_t>(b.bytes_per_launch + 0.5)) +
       " per launch (sectors x 32 B / " + launches(c.sass ? c.sass->launches : 0) + ") over the ";
  v += b.clean_duration ? "clean median " + formatDuration(b.duration_ns) + " (" +
                              launches(b.duration_launches) + " uninstrumented)"
                        : "instrumented median " + formatDuration(b.duration_ns) +
                              " (no clean launches: inflated, so this is low)";
  field(out, "Global Traffic", v + "; L2 hits count as sectors too.");
}

void clocks(TextOut& out, const KernelGroup& g, const KernelCard& c) {
  const ClockWindow& w = g.clocks;
  if (w.samples == 0) {
    field(out, "Clocks/Power",
          c.session_has_samples ? "n/a (no GPU samples for this GPU)"
                                : "n/a (no GPU samples in this session)");
    return;
  }
  std::string v;
  if (w.clk_sm.n) v += "SM " + formatFixed(w.clk_sm.avg(), 0) + " MHz";
  if (w.power_w.n)
    v += std::string(v.empty() ? "" : ", ") + "power " + formatFixed(w.power_w.avg(), 1) + " W";
  if (v.empty()) v = "no clock or power readings";
  v += w.nearest ? " (nearest sample, " + formatDuration(static_cast<double>(w.nearest_gap_ns)) +
                       " from a launch)"
                 : " (avg of " + formatCount(w.samples) +
                       (w.samples == 1 ? " sample" : " samples") + " while it ran)";
  field(out, "Clocks/Power", v);
  std::string t = w.throttle_samples == 0 ? "not reported" : "none";
  if (!w.throttle.empty()) {
    t.clear();
    for (const std::string& reason : w.throttle) t += (t.empty() ? "" : ", ") + reason;
  }
  field(out, "Throttle", t);
}

void writeText(TextOut& out, const Report& r, const ReportOptions& o) {
  size_t top = static_cast<size_t>(std::max(o.top_n, 0));
  size_t n = std::min(r.cards.size(), top);
  out.banner("Why Is This Kernel Slow (Top " + std::to_string(n) + ")");
  if (n == 0) {
    out.line("  No kernels recorded.");
    return;
  }
  // Each title, "N. name (grid)x(block)", within the rule's width: the names get what the longest
  // number and launch shape leave.
  std::vector<std::string> card_names;
  size_t shape_w = 0;
  for (size_t i = 0; i < n; ++i) {
    const KernelGroup& g = r.kernels.groups[r.cards[i].group];
    card_names.push_back(g.name);
    if (g.defined)
      shape_w = std::max(shape_w, 1 + displayWidth(formatDim3(g.grid) + "x" + formatDim3(g.block)));
  }
  const size_t fixed = 2 + std::to_string(n).size() + 2 + shape_w;
  const size_t name_w = std::min(kCardNameWidth, kRuleWidth > fixed ? kRuleWidth - fixed : 0);
  const KernelNames names(card_names, name_w, o.wide_names);
  for (size_t i = 0; i < n; ++i) {
    const KernelCard& c = r.cards[i];
    const KernelGroup& g = r.kernels.groups[c.group];
    std::string title = std::to_string(i + 1) + ". " + names(g.name);
    if (g.defined) {
      title += ' ';
      title += formatDim3(g.grid);
      title += 'x';
      title += formatDim3(g.block);
    }
    out.line();
    out.line("  " + title);
    out.line("  " + std::string(displayWidth(title), '-'));
    field(out, "GPU Time",
          formatDuration(static_cast<double>(g.durations.total_ns)) + " in " +
              launches(g.durations.count) + " (" + formatPercent(c.share_pct) + " of kernel time)");
    occupancy(out, r, g);
    sass(out, r, c);
    stalls(out, c);
    bandwidth(out, c);
    clocks(out, g, c);
    for (size_t a = 0; a < c.advice.size(); ++a)
      field(out, a == 0 ? "Try First" : "Then", c.advice[a].text);
  }
}

bool inText(const Report& r) {
  return !r.kernels.groups.empty();
}

// As many cards as the text shows (--top).
void writeJson(JsonWriter& w, const Report& r, const ReportOptions& o) {
  const size_t n = std::min(r.cards.size(), static_cast<size_t>(std::max(o.top_n, 0)));
  json::put(w, "cards", std::vector<KernelCard>(r.cards.begin(), r.cards.begin() + n), r);
}

}  // namespace

extern const Section kCards = {
    .name = "cards", .text = writeText, .in_text = inText, .json = writeJson};

}  // namespace gpufl::report::sections
