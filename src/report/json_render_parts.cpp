// renderJson pieces for transfers, system metrics, scopes, profile and collection (benchmarks:
// json_render_bench.cpp) notes.
#include "report/json_render_parts.hpp"

#include "report/scope_stats.hpp"

namespace gpufl::report::json {
namespace {

void transferStats(JsonWriter& w, const TransferStats& s) {
  w.beginObject();
  w.field("kind", s.kind);
  w.field("count", s.count);
  w.field("bytes", s.bytes);
  w.field("total_ns", s.total_ns);
  w.field("throughput_bps", s.throughput_bps, 1);
  w.field("pageable", s.pageable);
  w.endObject();
}

void stat(JsonWriter& w, std::string_view name, const Stat& s) {
  w.key(name);
  if (s.n == 0) {
    w.null();
    return;
  }
  w.beginObject();
  w.field("samples", s.n);
  w.field("avg", s.avg(), 3);
  w.field("min", s.min, 3);
  w.field("max", s.max, 3);
  w.endObject();
}

void counts(JsonWriter& w, std::string_view name, const std::map<std::string, uint64_t>& m) {
  w.key(name).beginObject();
  for (const auto& [k, v] : m) w.field(k, v);
  w.endObject();
}

void sassTotals(JsonWriter& w, const SassTotals& s, int warp_size) {
  w.key("sass").beginObject();
  w.field("inst_executed", s.inst_executed);
  w.field("thread_inst_executed", s.thread_inst_executed);
  w.field("sectors_global", s.sectors_global);
  w.field("sectors_global_ideal", s.sectors_global_ideal);
  w.field("threads_per_warp", s.threadsPerWarp(), 3);
  w.field("warp_efficiency_pct", s.warpEfficiencyPct(warp_size), 2);
  w.field("memory_efficiency_pct", s.memoryEfficiencyPct(), 2);
  w.endObject();
}

void function(JsonWriter& w, const FunctionProfile& f, int warp_size) {
  w.beginObject();
  w.field("func", f.func);
  w.field("name", f.name);
  w.field("has_sass", f.has_sass);
  w.field("launches", f.launches);
  sassTotals(w, f.sass, warp_size);
  w.field("stall_samples", f.stall_samples);
  w.field("patched_samples", f.patched_samples);
  w.key("stalls").beginArray();
  for (const StallCount& s : f.stalls) {
    w.beginObject();
    w.field("reason", s.reason);
    w.field("label", s.label);
    w.field("samples", s.samples);
    w.endObject();
  }
  w.endArray();
  w.field("hot_by", f.hot_by_samples ? "samples" : "inst_executed");
  w.key("hot").beginArray();
  for (const HotInstruction& h : f.hot) {
    w.beginObject();
    w.field("pc", h.pc);
    w.field("sass", h.sass);
    w.field("source", h.source);
    w.field("samples", h.samples);
    w.field("top_stall", h.top_stall);
    w.field("inst_executed", h.inst_executed);
    w.field("thread_inst_executed", h.thread_inst_executed);
    w.endObject();
  }
  w.endArray();
  hintList(w, "hints", f.hints);
  w.endObject();
}

}  // namespace

void syncs(JsonWriter& w, const SyncSummary& s, const ScopeSummary& scopes) {
  if (!s.enabled && s.count == 0) return;
  w.key("syncs").beginObject();
  w.field("enabled", s.enabled);
  w.field("count", s.count);
  w.field("total_ns", s.total_ns);
  w.key("kinds").beginArray();
  for (const SyncStats& k : s.kinds) {
    w.beginObject();
    w.field("kind", k.kind);
    w.field("count", k.count);
    w.field("total_ns", k.total_ns);
    w.field("max_ns", k.max_ns);
    w.endObject();
  }
  w.endArray();
  w.key("scopes").beginArray();
  for (const SyncScopeStats& sc : s.scopes) {
    w.beginObject();
    w.field("path", sc.path);
    w.field("name", scopePathName(scopes, sc.path));
    w.field("count", sc.count);
    w.field("total_ns", sc.total_ns);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void memory(JsonWriter& w, const MemorySummary& m, const ScopeSummary& scopes) {
  if (!m.enabled && m.allocs == 0 && m.frees == 0) return;
  w.key("memory").beginObject();
  w.field("enabled", m.enabled);
  w.field("allocs", m.allocs);
  w.field("frees", m.frees);
  w.field("bytes", m.bytes);
  w.field("peak_in_use", m.peak_in_use);
  w.field("peak_ts_ns", m.peak_ts_ns);
  w.field("in_use_at_end", m.in_use_at_end);
  w.key("kinds").beginArray();
  for (const MemoryKindStats& k : m.kinds) {
    w.beginObject();
    w.field("kind", k.kind);
    w.field("allocs", k.allocs);
    w.field("frees", k.frees);
    w.field("bytes", k.bytes);
    w.field("largest", k.largest);
    w.endObject();
  }
  w.endArray();
  w.key("scopes").beginArray();
  for (const MemoryScopeStats& sc : m.scopes) {
    w.beginObject();
    w.field("path", sc.path);
    w.field("name", scopePathName(scopes, sc.path));
    w.field("allocs", sc.allocs);
    w.field("bytes", sc.bytes);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void transfers(JsonWriter& w, const TransferSummary& t) {
  w.key("transfers").beginObject();
  w.field("copies", t.copies);
  w.field("bytes", t.copy_bytes);
  w.field("pageable_copies", t.pageable_copies);
  w.field("pageable_bytes", t.pageable_bytes);
  w.key("directions").beginArray();
  for (const TransferStats& s : t.directions) transferStats(w, s);
  w.endArray();
  w.key("memsets");
  transferStats(w, t.memsets);
  w.endObject();
}

void system(JsonWriter& w, const std::vector<GpuSystemStats>& gpus, const HostSystemStats& host) {
  w.key("system").beginObject();
  w.key("gpus").beginArray();
  for (const GpuSystemStats& g : gpus) {
    w.beginObject();
    w.field("gpu", g.gpu);
    w.field("samples", g.samples);
    stat(w, "util_gpu", g.util_gpu);
    stat(w, "util_mem", g.util_mem);
    stat(w, "temp_c", g.temp_c);
    stat(w, "power_w", g.power_w);
    w.key("power_limit_w");
    g.power_limit_w ? w.value(*g.power_limit_w, 3) : w.null();
    w.key("energy_j");
    g.energy_j ? w.value(*g.energy_j, 3) : w.null();
    w.field("energy_source", g.energy_source);
    w.key("vram_peak_bytes");
    g.has_vram ? w.value(g.vram_peak_bytes) : w.null();
    w.field("vram_total_bytes", g.vram_total_bytes);
    stat(w, "clk_sm", g.clk_sm);
    stat(w, "clk_mem", g.clk_mem);
    stat(w, "pcie_rx_kbps", g.pcie_rx_kbps);
    stat(w, "pcie_tx_kbps", g.pcie_tx_kbps);
    w.field("throttle_samples", g.throttle_samples);
    w.key("throttle").beginArray();
    for (const ThrottleShare& t : g.throttle) {
      w.beginObject();
      w.field("reason", t.reason);
      w.field("samples", t.samples);
      w.field("pct", t.pct, 2);
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.key("host").beginObject();
  w.field("samples", host.samples);
  stat(w, "cpu_pct", host.cpu_pct);
  stat(w, "proc_cpu_pct", host.proc_cpu_pct);
  w.key("ram_peak_bytes");
  host.has_ram ? w.value(host.ram_peak_bytes) : w.null();
  w.field("ram_total_bytes", host.ram_total_bytes);
  w.field("rss_peak_bytes", host.rss_peak_bytes);
  w.endObject();
  w.endObject();
}

void scopes(JsonWriter& w, const ScopeSummary& s) {
  w.key("scopes").beginObject();
  w.field("unfinished", s.unfinished);
  w.field("unmatched_ends", s.unmatched_ends);
  w.field("kernels_outside", s.kernels_outside);
  w.field("gpu_outside_ns", s.gpu_outside_ns);
  w.key("paths").beginArray();
  for (const ScopeRow& r : s.rows) {
    w.beginObject();
    w.field("p", r.path);
    w.field("parent", r.parent);
    w.field("name", r.name);
    w.field("depth", r.depth);
    w.field("calls", r.calls);
    w.field("unfinished", r.unfinished);
    w.field("total_ns", r.total_ns);
    w.field("max_ns", r.max_ns);
    w.field("kernels_self", r.kernels_self);
    w.field("kernels_incl", r.kernels_incl);
    w.field("gpu_self_ns", r.gpu_self_ns);
    w.field("gpu_incl_ns", r.gpu_incl_ns);
    w.field("copies_self", r.copies_self);
    w.field("copies_incl", r.copies_incl);
    w.field("copy_bytes_self", r.copy_bytes_self);
    w.field("copy_bytes_incl", r.copy_bytes_incl);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void profile(JsonWriter& w, const ProfileSummary& p) {
  w.key("profile").beginObject();
  w.field("has_sass", p.has_sass);
  w.field("has_pc", p.has_pc);
  w.field("warp_size", p.warp_size);
  sassTotals(w, p.sass, p.warp_size);
  w.field("stall_samples", p.stall_samples);
  w.key("functions").beginArray();
  for (const FunctionProfile& f : p.functions) function(w, f, p.warp_size);
  w.endArray();
  w.key("ranges").beginArray();
  for (const RangeCounterRow& r : p.ranges) {
    w.beginObject();
    w.field("range", r.range);
    if (!r.kernel.empty()) w.field("kernel", r.kernel);
    w.field("instances", r.instances);
    if (r.path != 0) w.field("path", r.path);
    w.key("metrics").beginObject();
    for (const auto& [name, v] : r.metrics) w.field(name, v, 6);
    w.endObject();
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void collection(JsonWriter& w, const CollectionInfo& c) {
  w.key("collection").beginObject();
  w.key("notes").beginArray();
  for (const Note& n : c.notes) {
    w.beginObject();
    w.field("ts_ns", n.ts_ns);
    w.field("feature", n.feature);
    w.field("status", n.status);
    w.field("reason", n.reason);
    w.endObject();
  }
  w.endArray();
  counts(w, "dropped", c.dropped);
  counts(w, "overhead_ns", c.overhead_ns);
  w.field("cpu_time_ns", c.cpu_time_ns);
  w.field("buffers", c.buffers);
  w.field("bytes_written", c.bytes_written);
  w.field("reader_warnings", c.reader_warnings);
  w.field("records", c.records);
  w.endObject();
}

}  // namespace gpufl::report::json
