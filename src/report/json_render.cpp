// renderJson: the Report as one JSON document. Field names follow the log format's where they
// exist.
#include "report/format.hpp"
#include "report/incidents.hpp"
#include "report/json_render_parts.hpp"
#include "report/json_writer.hpp"
#include "report/report.hpp"

namespace gpufl::report {
namespace json {

void durations(JsonWriter& w, std::string_view name, const DurationSummary& d) {
  w.key(name);
  if (d.count == 0) {
    w.null();
    return;
  }
  w.beginObject();
  w.field("count", d.count);
  w.field("total_ns", d.total_ns);
  w.field("avg_ns", d.avg_ns, 1);
  w.field("median_ns", d.median_ns, 1);
  w.field("p90_ns", d.p90_ns, 1);
  w.field("p99_ns", d.p99_ns, 1);
  w.field("min_ns", d.min_ns);
  w.field("max_ns", d.max_ns);
  w.field("approximate", d.approximate);
  w.endObject();
}

namespace {

void session(JsonWriter& w, const SessionSummary& s) {
  w.key("session").beginObject();
  w.field("sid", s.sid);
  w.field("session_id", s.session_id);
  w.field("app", s.app);
  w.field("host", s.host);
  w.field("pid", s.pid);
  w.field("version", s.version);
  w.field("engine", engineName(s.engine));
  w.field("started", s.started);
  w.field("ended", s.ended);
  w.field("start_ns", s.start_ns);
  w.field("start_unix_ns", s.start_unix_ns);
  w.field("end_ns", s.end_ns);
  w.field("duration_ns", s.duration_ns);
  if (!s.log_incomplete.empty()) {
    w.key("log_incomplete").beginArray();
    for (const std::string& phrase : s.log_incomplete) w.value(phrase);
    w.endArray();
  }
  w.key("devices").beginArray();
  for (const DeviceInfo& d : s.devices) {
    w.beginObject();
    w.field("id", d.id);
    w.field("name", d.name);
    w.field("uuid", d.uuid);
    w.field("cc_major", d.cc_major);
    w.field("cc_minor", d.cc_minor);
    w.field("sm_count", d.sm_count);
    w.field("warp_size", d.warp_size);
    w.field("max_threads_per_sm", d.max_threads_per_sm);
    w.field("regs_per_block", d.regs_per_block);
    w.field("smem_per_block_bytes", d.smem_per_block_bytes);
    w.field("l2_bytes", d.l2_bytes);
    w.field("global_mem_bytes", d.global_mem_bytes);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void kernels(JsonWriter& w, const KernelSummary& k) {
  w.key("kernels").beginObject();
  w.field("launches", k.launches);
  w.field("unique_functions", k.unique_functions);
  w.field("groups", static_cast<uint64_t>(k.groups.size()));
  w.field("instrumented", k.instrumented);
  w.field("total_ns", k.total_ns);
  w.field("busy_ns", k.busy_ns);
  w.field("busy_pct", k.busy_pct, 2);
  w.field("busy_approximate", k.busy_clipped);
  durations(w, "durations", k.all);
  durations(w, "clean_durations", k.clean);
  w.field("undefined_refs", k.undefined_refs);
  w.endObject();

  w.key("kernel_groups").beginArray();
  for (const KernelGroup& g : k.groups) {
    w.beginObject();
    w.field("name", g.name);
    w.field("mangled", g.mangled);
    // null when the launch shape is unknown (no kernel_def): never the default (1,1,1).
    if (g.defined) {
      w.field("grid", formatDim3(g.grid));
      w.field("block", formatDim3(g.block));
    } else {
      w.key("grid").null();
      w.key("block").null();
    }
    w.field("defs", g.defs);
    w.field("instrumented", g.instrumented);
    durations(w, "durations", g.durations);
    w.field("num_regs", g.def.num_regs);
    w.field("static_shared_bytes", g.def.static_shared_bytes);
    w.field("dyn_shared_bytes", g.def.dyn_shared_bytes);
    w.field("local_bytes", g.def.local_bytes);
    if (g.def.carveout_pct) w.field("carveout_pct", *g.def.carveout_pct);  // only when requested
    w.key("occupancy");
    if (g.def.occupancy) {
      const Occupancy& o = *g.def.occupancy;
      w.beginObject();
      w.field("occupancy", o.occupancy, 6);
      w.field("reg_occupancy", o.reg_occupancy, 6);
      w.field("smem_occupancy", o.smem_occupancy, 6);
      w.field("warp_occupancy", o.warp_occupancy, 6);
      w.field("block_occupancy", o.block_occupancy, 6);
      w.field("limiting_resource", limitingResourceName(o.limiting));
      w.field("max_active_blocks", o.max_active_blocks);
      w.endObject();
    } else {
      w.null();
    }
    w.key("waves");
    g.def.waves ? w.value(*g.def.waves) : w.null();
    w.endObject();
  }
  w.endArray();
}

void hints(JsonWriter& w, const std::vector<Hint>& hs) {
  w.beginArray();
  for (const Hint& h : hs) {
    w.beginObject();
    w.field("kind", h.kind);
    w.field("subject", h.subject);
    w.field("text", h.text);
    w.endObject();
  }
  w.endArray();
}

}  // namespace

void hintList(JsonWriter& w, std::string_view name, const std::vector<Hint>& hs) {
  w.key(name);
  hints(w, hs);
}

}  // namespace json

std::string renderJson(const Report& r, const ReportOptions& options) {
  JsonWriter w;
  w.beginObject();
  w.field("report_schema", 1);
  w.field("generated_at", generatedAt(options));
  renderIncidentsJson(w, r, options);
  json::session(w, r.session);
  json::kernels(w, r.kernels);
  json::cards(w, r);
  json::transfers(w, r.transfers);
  json::syncs(w, r.syncs, r.scopes);
  json::memory(w, r.memory, r.scopes);
  json::system(w, r.gpus, r.host);
  json::scopes(w, r.scopes);
  json::profile(w, r.profile);
  json::benchmarks(w, r.benchmarks);
  json::hintList(w, "hints", r.hints);
  json::collection(w, r.collection);
  w.endObject();
  return w.take();
}

}  // namespace gpufl::report
