// Parsers of the low-volume records (everything except kernel and copy events, which record_parser.cpp
// handles on its fast path). Required fields follow docs/log-format.md where a record is useless without
// them; descriptive fields are optional so that a partially written writer version still reads.
#include "log/record_fields.hpp"

namespace gpufl::log::detail {
namespace {

// Iterates an object that is not a record (a device, ...): no type or sid handling.
template <typename OnField>
void forEachMember(od::object& obj, RecordContext& ctx, OnField&& on) {
  KeySet seen;
  for (auto item : obj) {
    od::field field;
    if (auto e = std::move(item).get(field)) return ctx.syntax(e);
    const std::string_view key = rawText(field.key());
    if (!seen.insert(key)) return ctx.duplicateKey(key);
    on(key, field.value());
    if (ctx.outcome() != Outcome::Ok) return;
  }
}

// One field of a device, in session_start.devices or in a device record.
void deviceField(std::string_view key, od::value& v, RecordContext& c, DeviceInfo& d) {
  if (key == "id") c.number(v, key, d.id);
  else if (key == "name") c.string(v, key, d.name);
  else if (key == "uuid") c.string(v, key, d.uuid);
  else if (key == "cc_major") c.number(v, key, d.cc_major);
  else if (key == "cc_minor") c.number(v, key, d.cc_minor);
  else if (key == "sm_count") c.number(v, key, d.sm_count);
  else if (key == "warp_size") c.number(v, key, d.warp_size);
  else if (key == "max_threads_per_sm") c.number(v, key, d.max_threads_per_sm);
  else if (key == "max_threads_per_block") c.number(v, key, d.max_threads_per_block);
  else if (key == "max_blocks_per_sm") c.number(v, key, d.max_blocks_per_sm);
  else if (key == "regs_per_sm") c.number(v, key, d.regs_per_sm);
  else if (key == "regs_per_block") c.number(v, key, d.regs_per_block);
  else if (key == "smem_per_sm_bytes") c.number(v, key, d.smem_per_sm_bytes);
  else if (key == "smem_per_block_bytes") c.number(v, key, d.smem_per_block_bytes);
  else if (key == "smem_per_block_optin_bytes") c.number(v, key, d.smem_per_block_optin_bytes);
  else if (key == "smem_reserved_per_block_bytes") c.number(v, key, d.smem_reserved_per_block_bytes);
  else if (key == "l2_bytes") c.number(v, key, d.l2_bytes);
  else if (key == "global_mem_bytes") c.number(v, key, d.global_mem_bytes);
  else if (key == "mem_bus_bits") c.number(v, key, d.mem_bus_bits);
  else if (key == "clock_khz") c.number(v, key, d.clock_khz);
  else if (key == "mem_clock_khz") c.number(v, key, d.mem_clock_khz);
}

void parseDevice(od::object& obj, RecordContext& c, DeviceInfo& d) {
  forEachMember(obj, c, [&](std::string_view key, od::value& v) { deviceField(key, v, c, d); });
}

void parseDevices(od::value& v, RecordContext& c, std::vector<DeviceInfo>& out) {
  od::array array;
  if (auto e = v.get_array().get(array)) {
    if (e == simdjson::INCORRECT_TYPE) c.fieldError("devices", "not an array");
    else c.syntax(e);
    return;
  }
  c.setNamePrefix("devices.");
  for (auto item : array) {
    od::object obj;
    if (auto e = item.get_object().get(obj)) {
      if (e == simdjson::INCORRECT_TYPE) c.fieldError("", "not an object");  // "devices." names it
      else c.syntax(e);
      break;
    }
    parseDevice(obj, c, out.emplace_back());
    if (c.outcome() != Outcome::Ok) break;
  }
  c.setNamePrefix("");
}

}  // namespace

void parseSessionStart(od::object& obj, RecordContext& c, SessionStart& out) {
  bool id = false, start = false, unix_start = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "session_id") id = c.string(v, key, out.session_id);
    else if (key == "start_ns") start = c.number(v, key, out.start_ns);
    else if (key == "start_unix_ns") unix_start = c.number(v, key, out.start_unix_ns);
    else if (key == "schema") c.number(v, key, out.schema);
    else if (key == "app") c.string(v, key, out.app);
    else if (key == "pid") c.number(v, key, out.pid);
    else if (key == "host") c.string(v, key, out.host);
    else if (key == "version") c.string(v, key, out.version);
    else if (key == "engine") {
      // An engine this reader does not know (a newer writer) reads as None rather than losing the session.
      std::string name;
      if (c.string(v, key, name)) out.engine = engineFromName(name).value_or(Engine::None);
    } else if (key == "options") c.rawJsonMap(v, key, out.options);
    else if (key == "devices") parseDevices(v, c, out.devices);
  });
  c.require({{"session_id", id}, {"start_ns", start}, {"start_unix_ns", unix_start}});
}

void parseDeviceEvent(od::object& obj, RecordContext& c, DeviceEvent& out) {
  bool id = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "id") id = c.number(v, key, out.device.id);
    else deviceField(key, v, c, out.device);
  });
  c.require({{"id", id}});
}

void parseSessionEnd(od::object& obj, RecordContext& c, SessionEnd& out) {
  bool end = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "end_ns") end = c.number(v, key, out.end_ns);
    else if (key == "kernels") c.number(v, key, out.kernels);
    else if (key == "memcpys") c.number(v, key, out.memcpys);
    else if (key == "scopes") c.number(v, key, out.scopes);
    else if (key == "dropped") c.numberMap(v, key, out.dropped);
    else if (key == "overhead_ns") c.numberMap(v, key, out.overhead_ns);
    else if (key == "cpu_time_ns") c.number(v, key, out.cpu_time_ns);
    else if (key == "buffers") c.number(v, key, out.buffers);
    else if (key == "bytes_written") c.number(v, key, out.bytes_written);
  });
  c.require({{"end_ns", end}});
}

void parseNote(od::object& obj, RecordContext& c, Note& out) {
  bool feature = false, status = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "feature") feature = c.string(v, key, out.feature);
    else if (key == "status") status = c.string(v, key, out.status);
    else if (key == "reason") c.string(v, key, out.reason);
    else if (key == "ts_ns") c.number(v, key, out.ts_ns);
  });
  c.require({{"feature", feature}, {"status", status}});
}

void parseKernelDef(od::object& obj, RecordContext& c, KernelDef& out) {
  bool k = false, name = false, demangled = false;
  Occupancy occ;
  bool have_occ = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "k") k = c.number(v, key, out.id);
    else if (key == "name") name = c.string(v, key, out.name);
    else if (key == "demangled") demangled = c.string(v, key, out.demangled);
    else if (key == "device") c.number(v, key, out.device);
    else if (key == "context") c.number(v, key, out.context);
    else if (key == "grid") c.dim3(v, key, out.grid);
    else if (key == "block") c.dim3(v, key, out.block);
    else if (key == "num_regs") c.number(v, key, out.num_regs);
    else if (key == "static_shared_bytes") c.number(v, key, out.static_shared_bytes);
    else if (key == "dyn_shared_bytes") c.number(v, key, out.dyn_shared_bytes);
    else if (key == "local_bytes") c.number(v, key, out.local_bytes);
    else if (key == "waves") c.number(v, key, out.waves);
    else if (key == "occupancy") have_occ |= c.number(v, key, occ.occupancy);
    else if (key == "reg_occupancy") have_occ |= c.number(v, key, occ.reg_occupancy);
    else if (key == "smem_occupancy") have_occ |= c.number(v, key, occ.smem_occupancy);
    else if (key == "warp_occupancy") have_occ |= c.number(v, key, occ.warp_occupancy);
    else if (key == "block_occupancy") have_occ |= c.number(v, key, occ.block_occupancy);
    else if (key == "max_active_blocks") have_occ |= c.number(v, key, occ.max_active_blocks);
    else if (key == "limiting_resource") {
      std::string limit;
      if (c.string(v, key, limit)) {
        occ.limiting = limitingResourceFromName(limit).value_or(LimitingResource::None);
        have_occ = true;
      }
    }
  });
  c.require({{"k", k}, {"name", name}});
  if (have_occ) out.occupancy = occ;
  if (!demangled) out.demangled = out.name;
}

void parseStack(od::object& obj, RecordContext& c, StackDef& out) {
  bool id = false, frames = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "id") id = c.number(v, key, out.id);
    else if (key == "frames") frames = c.stringArray(v, key, out.frames);
  });
  c.require({{"id", id}, {"frames", frames}});
}

void parseScopePath(od::object& obj, RecordContext& c, ScopePath& out) {
  bool p = false, name = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "p") p = c.number(v, key, out.id);
    else if (key == "parent") c.number(v, key, out.parent);
    else if (key == "name") name = c.string(v, key, out.name);
    else if (key == "depth") c.number(v, key, out.depth);
  });
  c.require({{"p", p}, {"name", name}});
}

void parseScopeBegin(od::object& obj, RecordContext& c, ScopeBegin& out) {
  bool id = false, p = false, ts = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "id") id = c.number(v, key, out.id);
    else if (key == "p") p = c.number(v, key, out.path);
    else if (key == "ts_ns") ts = c.number(v, key, out.ts_ns);
    else if (key == "tid") c.number(v, key, out.tid);
    else if (key == "name") c.string(v, key, out.name);
    else if (key == "tag") c.string(v, key, out.tag);
    else if (key == "depth") c.number(v, key, out.depth);
  });
  c.require({{"id", id}, {"p", p}, {"ts_ns", ts}});
}

void parseScopeEnd(od::object& obj, RecordContext& c, ScopeEnd& out) {
  bool id = false, p = false, ts = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "id") id = c.number(v, key, out.id);
    else if (key == "p") p = c.number(v, key, out.path);
    else if (key == "ts_ns") ts = c.number(v, key, out.ts_ns);
    else if (key == "tid") c.number(v, key, out.tid);
  });
  c.require({{"id", id}, {"p", p}, {"ts_ns", ts}});
}

void parseGpuSample(od::object& obj, RecordContext& c, GpuSample& out) {
  bool ts = false, gpu = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "ts_ns") ts = c.number(v, key, out.ts_ns);
    else if (key == "gpu") gpu = c.number(v, key, out.gpu);
    else if (key == "util_gpu") c.number(v, key, out.util_gpu);
    else if (key == "util_mem") c.number(v, key, out.util_mem);
    else if (key == "mem_used_bytes") c.number(v, key, out.mem_used_bytes);
    else if (key == "mem_total_bytes") c.number(v, key, out.mem_total_bytes);
    else if (key == "temp_c") c.number(v, key, out.temp_c);
    else if (key == "power_mw") c.number(v, key, out.power_mw);
    else if (key == "power_limit_mw") c.number(v, key, out.power_limit_mw);
    else if (key == "energy_mj") c.number(v, key, out.energy_mj);
    else if (key == "clk_sm") c.number(v, key, out.clk_sm);
    else if (key == "clk_mem") c.number(v, key, out.clk_mem);
    else if (key == "clk_gfx") c.number(v, key, out.clk_gfx);
    else if (key == "pcie_rx_kbps") c.number(v, key, out.pcie_rx_kbps);
    else if (key == "pcie_tx_kbps") c.number(v, key, out.pcie_tx_kbps);
    else if (key == "throttle") c.number(v, key, out.throttle);
    else if (key == "throttle_reasons") c.stringArray(v, key, out.throttle_reasons);
  });
  c.require({{"ts_ns", ts}, {"gpu", gpu}});
}

void parseHostSample(od::object& obj, RecordContext& c, HostSample& out) {
  bool ts = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "ts_ns") ts = c.number(v, key, out.ts_ns);
    else if (key == "cpu_pct") c.number(v, key, out.cpu_pct);
    else if (key == "proc_cpu_pct") c.number(v, key, out.proc_cpu_pct);
    else if (key == "ram_used_bytes") c.number(v, key, out.ram_used_bytes);
    else if (key == "ram_total_bytes") c.number(v, key, out.ram_total_bytes);
    else if (key == "proc_rss_bytes") c.number(v, key, out.proc_rss_bytes);
  });
  c.require({{"ts_ns", ts}});
}

void parseSassMetric(od::object& obj, RecordContext& c, SassMetric& out) {
  bool func = false, pc = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "func") func = c.string(v, key, out.func);
    else if (key == "pc") pc = c.number(v, key, out.pc);
    else if (key == "launches") c.number(v, key, out.launches);
    else if (key == "inst_executed") c.number(v, key, out.inst_executed);
    else if (key == "thread_inst_executed") c.number(v, key, out.thread_inst_executed);
    else if (key == "sectors_global") c.number(v, key, out.sectors_global);
    else if (key == "sectors_global_ideal") c.number(v, key, out.sectors_global_ideal);
    else if (key == "sass") c.string(v, key, out.sass);
    else if (key == "source") c.string(v, key, out.source);
  });
  c.require({{"func", func}, {"pc", pc}});
}

void parsePcSample(od::object& obj, RecordContext& c, PcSample& out) {
  bool func = false, pc = false, stall = false, count = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "func") func = c.string(v, key, out.func);
    else if (key == "pc") pc = c.number(v, key, out.pc);
    else if (key == "stall") stall = c.string(v, key, out.stall);
    else if (key == "count") count = c.number(v, key, out.count);
    else if (key == "sass") c.string(v, key, out.sass);
    else if (key == "source") c.string(v, key, out.source);
    else if (key == "patched") c.boolean(v, key, out.patched);
  });
  c.require({{"func", func}, {"pc", pc}, {"stall", stall}, {"count", count}});
}

void parseRangeCounters(od::object& obj, RecordContext& c, RangeCounters& out) {
  bool range = false, metrics = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "range") range = c.string(v, key, out.range);
    else if (key == "kernel") c.string(v, key, out.kernel);
    else if (key == "p") c.number(v, key, out.path);
    else if (key == "metrics") metrics = c.numberMap(v, key, out.metrics);
  });
  c.require({{"range", range}, {"metrics", metrics}});
}

void parseBenchmark(od::object& obj, RecordContext& c, BenchmarkResult& out) {
  bool name = false, median = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "name") name = c.string(v, key, out.name);
    else if (key == "median_ns") median = c.number(v, key, out.median_ns);
    else if (key == "shape") c.string(v, key, out.shape);
    else if (key == "iterations") c.number(v, key, out.iterations);
    else if (key == "min_ns") c.number(v, key, out.min_ns);
    else if (key == "max_ns") c.number(v, key, out.max_ns);
    else if (key == "mean_ns") c.number(v, key, out.mean_ns);
  });
  c.require({{"name", name}, {"median_ns", median}});
}

void parseSyncEvent(od::object& obj, RecordContext& c, SyncEvent& out) {
  bool start = false, have_dur = false;
  int64_t dur = 0;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "start_ns") start = c.number(v, key, out.start_ns);
    else if (key == "dur_ns") have_dur = c.number(v, key, dur);
    else if (key == "kind") {
      std::string kind;
      if (c.string(v, key, kind)) out.kind = syncKindFromName(kind).value_or(SyncKind::Unknown);
    } else if (key == "stream") c.number(v, key, out.stream);
    else if (key == "corr") c.number(v, key, out.correlation_id);
    else if (key == "scope") c.number(v, key, out.scope_path);
  });
  if (dur < 0) c.fieldError("dur_ns", "is negative");
  c.require({{"start_ns", start}, {"dur_ns", have_dur}});
  out.end_ns = wrapAdd(out.start_ns, dur);
}

void parseMemoryEvent(od::object& obj, RecordContext& c, MemoryEvent& out) {
  bool ts = false, op = false, bytes = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "ts_ns") ts = c.number(v, key, out.ts_ns);
    else if (key == "op") {
      std::string text;
      if (c.string(v, key, text)) {
        op = text == "alloc" || text == "free";
        if (op) out.is_free = text == "free";
        else c.fieldError("op", "is neither \"alloc\" nor \"free\"");
      }
    } else if (key == "bytes") bytes = c.number(v, key, out.bytes);
    else if (key == "address") c.number(v, key, out.address);
    else if (key == "device") c.number(v, key, out.device);
    else if (key == "kind") c.string(v, key, out.memory_kind);
    else if (key == "stream") c.number(v, key, out.stream);
    else if (key == "corr") c.number(v, key, out.correlation_id);
    else if (key == "scope") c.number(v, key, out.scope_path);
  });
  c.require({{"ts_ns", ts}, {"op", op}, {"bytes", bytes}});
}

}  // namespace gpufl::log::detail
