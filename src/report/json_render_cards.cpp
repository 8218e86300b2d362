// renderJson piece for the "Why Is This Kernel Slow" cards (Report::cards).
#include "report/format.hpp"
#include "report/json_render_parts.hpp"

namespace gpufl::report::json {
namespace {

void avgStat(JsonWriter& w, std::string_view name, const Stat& s, int decimals) {
  w.key(name);
  s.n ? w.value(s.avg(), decimals) : w.null();
}

void clocks(JsonWriter& w, const ClockWindow& c) {
  w.key("clocks").beginObject();
  w.field("samples", c.samples);
  w.field("nearest_sample", c.nearest);
  w.field("nearest_gap_ns", c.nearest_gap_ns);
  w.field("interval_resolution_ns", c.resolution_ns);
  avgStat(w, "clk_sm_avg_mhz", c.clk_sm, 1);
  avgStat(w, "power_avg_w", c.power_w, 3);
  w.field("throttle_samples", c.throttle_samples);
  w.key("throttle_reasons").beginArray();
  for (const std::string& t : c.throttle) w.value(t);
  w.endArray();
  w.endObject();
}

void sass(JsonWriter& w, const KernelCard& c) {
  w.key("sass");
  if (!c.has_sass) {
    w.null();
    return;
  }
  w.beginObject();
  w.field("launches", c.sass_launches);
  w.field("function_groups", c.function_groups);
  w.field("sectors_global", c.sass.sectors_global);
  w.field("sectors_global_ideal", c.sass.sectors_global_ideal);
  w.field("memory_efficiency_pct", c.memory_efficiency_pct, 2);
  w.field("threads_per_warp", c.threads_per_warp, 3);
  w.field("warp_efficiency_pct", c.warp_efficiency_pct, 2);
  w.endObject();
}

void bandwidth(JsonWriter& w, const KernelCard& c) {
  w.key("global_traffic_estimate");  // an upper bound on DRAM traffic
  if (!c.has_bandwidth) {
    w.null();
    return;
  }
  w.beginObject();
  w.field("bytes_per_launch", c.bytes_per_launch, 1);
  w.field("duration_ns", c.duration_ns, 1);
  w.field("duration_source", c.clean_duration ? "clean_median" : "instrumented_median");
  w.field("duration_launches", c.duration_launches);
  w.field("achieved_bps", c.achieved_bps, 1);
  w.key("peak_bps");
  c.peak_bps > 0 ? w.value(c.peak_bps, 1) : w.null();
  w.key("peak_pct");
  c.peak_bps > 0 ? w.value(c.peak_pct, 3) : w.null();
  w.endObject();
}

}  // namespace

void cards(JsonWriter& w, const Report& r) {
  w.key("cards").beginArray();
  for (const KernelCard& c : r.cards) {
    const KernelGroup& g = r.kernels.groups[c.group];
    w.beginObject();
    w.field("name", g.name);
    // null when the launch shape is unknown (no kernel_def): never the default (1,1,1).
    if (g.defined) {
      w.field("grid", formatDim3(g.grid));
      w.field("block", formatDim3(g.block));
    } else {
      w.key("grid").null();
      w.key("block").null();
    }
    w.field("group_index", static_cast<uint64_t>(c.group));
    w.field("launches", g.durations.count);
    w.field("total_ns", g.durations.total_ns);
    w.field("share_pct", c.share_pct, 2);
    w.key("occupancy");
    g.def.occupancy ? w.value(g.def.occupancy->occupancy, 6) : w.null();
    w.field("limiting_resource",
            g.def.occupancy ? limitingResourceName(g.def.occupancy->limiting) : "none");
    w.key("waves");
    g.def.waves ? w.value(*g.def.waves) : w.null();
    sass(w, c);
    w.field("stall_samples", c.stall_samples);
    w.field("patched_samples", c.patched_samples);
    w.key("top_stalls").beginArray();
    for (const StallCount& s : c.stalls) {
      w.beginObject();
      w.field("reason", s.reason);
      w.field("label", s.label);
      w.field("samples", s.samples);
      w.field("pct", c.stall_samples ? 100.0 * s.samples / c.stall_samples : 0.0, 2);
      w.endObject();
    }
    w.endArray();
    bandwidth(w, c);
    clocks(w, g.clocks);
    w.key("advice").beginArray();
    for (const CardAdvice& a : c.advice) {
      w.beginObject();
      w.field("kind", a.kind);
      w.field("text", a.text);
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
}

}  // namespace gpufl::report::json
