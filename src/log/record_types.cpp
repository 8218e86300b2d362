// Parsers of the low-volume records (everything except kernel and copy events, which
// record_parser.cpp handles on its fast path). Required fields follow docs/log-format.md where a
// record is useless without them; descriptive fields are optional so that a partially written
// writer version still reads.
#include "core/record_schema.hpp"
#include "log/record_fields.hpp"

namespace gpufl::log::detail {
namespace {

// Pieces of the parsers generated from the field tables (core/record_schema.hpp).
#define GFL_HAVE_FIELD_(member, key_, presence, unit) [[maybe_unused]] bool have_##member = false;
#define GFL_READ_FIELD_(member, key_, presence, unit) \
  else if (key == key_) have_##member = c.field(v, key, out.member);
#define GFL_READ_MEMBER_(member, key_, presence, unit) \
  else if (key == key_) c.field(v, key, out.member);
#define GFL_REQUIRE_FIELD_(member, key_, presence, unit) \
  {key_, schema::Presence::presence != schema::Presence::Required || have_##member},

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
void deviceField(std::string_view key, od::value& v, RecordContext& c, DeviceInfo& out) {
  if (false) {
  }
  GFL_FIELDS_DeviceInfo(GFL_READ_MEMBER_)
}

void parseDevice(od::object& obj, RecordContext& c, DeviceInfo& d) {
  forEachMember(obj, c, [&](std::string_view key, od::value& v) { deviceField(key, v, c, d); });
}

void parseDevices(od::value& v, RecordContext& c, std::vector<DeviceInfo>& out) {
  od::array array;
  if (auto e = v.get_array().get(array)) {
    if (e == simdjson::INCORRECT_TYPE)
      c.fieldError("devices", "not an array");
    else
      c.syntax(e);
    return;
  }
  c.setNamePrefix("devices.");
  for (auto item : array) {
    od::object obj;
    if (auto e = item.get_object().get(obj)) {
      if (e == simdjson::INCORRECT_TYPE)
        c.fieldError("", "not an object");  // "devices." names it
      else
        c.syntax(e);
      break;
    }
    parseDevice(obj, c, out.emplace_back());
    if (c.outcome() != Outcome::Ok) break;
  }
  c.setNamePrefix("");
}

}  // namespace

// The records whose fields are read exactly as their table lists them: each key to its member by
// the member's type, unknown keys skipped, then the first Required field that is missing (in table
// order) reported. The others are hand-written where the wire form is not the members' values as
// such (see ndjson_format.cpp).
#define GFL_PARSE_RECORD_(T, fn)                                                                   \
  void fn(od::object& obj, RecordContext& c, T& out) {                                             \
    GFL_FIELDS_##T(GFL_HAVE_FIELD_) forEachField(obj, c, [&](std::string_view key, od::value& v) { \
      if (false) {                                                                                 \
      }                                                                                            \
      GFL_FIELDS_##T(GFL_READ_FIELD_)                                                              \
    });                                                                                            \
    c.require({GFL_FIELDS_##T(GFL_REQUIRE_FIELD_)});                                               \
  }

void parseSessionStart(od::object& obj, RecordContext& c, SessionStart& out) {
  bool id = false, start = false, unix_start = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "session_id")
      id = c.string(v, key, out.session_id);
    else if (key == "start_ns")
      start = c.number(v, key, out.start_ns);
    else if (key == "start_unix_ns")
      unix_start = c.number(v, key, out.start_unix_ns);
    else if (key == "schema")
      c.number(v, key, out.schema);
    else if (key == "app")
      c.string(v, key, out.app);
    else if (key == "pid")
      c.number(v, key, out.pid);
    else if (key == "host")
      c.string(v, key, out.host);
    else if (key == "version")
      c.string(v, key, out.version);
    else if (key == "engine") {
      // An engine this reader does not know (a newer writer) reads as None rather than losing the
      // session.
      std::string name;
      if (c.string(v, key, name)) out.engine = engineFromName(name).value_or(Engine::None);
    } else if (key == "options")
      c.rawJsonMap(v, key, out.options);
    else if (key == "devices")
      parseDevices(v, c, out.devices);
  });
  c.require({{"session_id", id}, {"start_ns", start}, {"start_unix_ns", unix_start}});
}

void parseDeviceEvent(od::object& obj, RecordContext& c, DeviceEvent& out) {
  bool id = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "id")
      id = c.number(v, key, out.device.id);
    else
      deviceField(key, v, c, out.device);
  });
  c.require({{"id", id}});
}

GFL_PARSE_RECORD_(SessionEnd, parseSessionEnd)

GFL_PARSE_RECORD_(Note, parseNote)

void parseKernelDef(od::object& obj, RecordContext& c, KernelDef& out) {
  bool k = false, name = false, demangled = false;
  Occupancy occ;
  bool have_occ = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "k")
      k = c.number(v, key, out.id);
    else if (key == "name")
      name = c.string(v, key, out.name);
    else if (key == "demangled")
      demangled = c.string(v, key, out.demangled);
    else if (key == "device")
      c.number(v, key, out.device);
    else if (key == "context")
      c.number(v, key, out.context);
    else if (key == "grid")
      c.dim3(v, key, out.grid);
    else if (key == "block")
      c.dim3(v, key, out.block);
    else if (key == "num_regs")
      c.number(v, key, out.num_regs);
    else if (key == "static_shared_bytes")
      c.number(v, key, out.static_shared_bytes);
    else if (key == "dyn_shared_bytes")
      c.number(v, key, out.dyn_shared_bytes);
    else if (key == "local_bytes")
      c.number(v, key, out.local_bytes);
    else if (key == "carveout_pct")
      c.number(v, key, out.carveout_pct);
    else if (key == "waves")
      c.number(v, key, out.waves);
    else if (key == "occupancy")
      have_occ |= c.number(v, key, occ.occupancy);
    else if (key == "reg_occupancy")
      have_occ |= c.number(v, key, occ.reg_occupancy);
    else if (key == "smem_occupancy")
      have_occ |= c.number(v, key, occ.smem_occupancy);
    else if (key == "warp_occupancy")
      have_occ |= c.number(v, key, occ.warp_occupancy);
    else if (key == "block_occupancy")
      have_occ |= c.number(v, key, occ.block_occupancy);
    else if (key == "max_active_blocks")
      have_occ |= c.number(v, key, occ.max_active_blocks);
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

GFL_PARSE_RECORD_(StackDef, parseStack)

GFL_PARSE_RECORD_(ScopePath, parseScopePath)

GFL_PARSE_RECORD_(ScopeBegin, parseScopeBegin)

GFL_PARSE_RECORD_(ScopeEnd, parseScopeEnd)

GFL_PARSE_RECORD_(GpuSample, parseGpuSample)

GFL_PARSE_RECORD_(HostSample, parseHostSample)

GFL_PARSE_RECORD_(SassMetric, parseSassMetric)

GFL_PARSE_RECORD_(PcSample, parsePcSample)

GFL_PARSE_RECORD_(RangeCounters, parseRangeCounters)

GFL_PARSE_RECORD_(BenchmarkResult, parseBenchmark)

void parseSyncEvent(od::object& obj, RecordContext& c, SyncEvent& out) {
  bool start = false, have_dur = false;
  int64_t dur = 0;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "start_ns")
      start = c.number(v, key, out.start_ns);
    else if (key == "dur_ns")
      have_dur = c.number(v, key, dur);
    else if (key == "kind") {
      std::string kind;
      if (c.string(v, key, kind)) out.kind = syncKindFromName(kind).value_or(SyncKind::Unknown);
    } else if (key == "stream")
      c.number(v, key, out.stream);
    else if (key == "corr")
      c.number(v, key, out.correlation_id);
    else if (key == "scope")
      c.number(v, key, out.scope_path);
  });
  if (dur < 0) c.fieldError("dur_ns", "is negative");
  c.require({{"start_ns", start}, {"dur_ns", have_dur}});
  out.end_ns = wrapAdd(out.start_ns, dur);
}

void parseMemoryEvent(od::object& obj, RecordContext& c, MemoryEvent& out) {
  bool ts = false, op = false, bytes = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "ts_ns")
      ts = c.number(v, key, out.ts_ns);
    else if (key == "op") {
      std::string text;
      if (c.string(v, key, text)) {
        op = text == "alloc" || text == "free";
        if (op)
          out.is_free = text == "free";
        else
          c.fieldError("op", "is neither \"alloc\" nor \"free\"");
      }
    } else if (key == "bytes")
      bytes = c.number(v, key, out.bytes);
    else if (key == "address")
      c.number(v, key, out.address);
    else if (key == "device")
      c.number(v, key, out.device);
    else if (key == "kind")
      c.string(v, key, out.memory_kind);
    else if (key == "stream")
      c.number(v, key, out.stream);
    else if (key == "corr")
      c.number(v, key, out.correlation_id);
    else if (key == "scope")
      c.number(v, key, out.scope_path);
  });
  c.require({{"ts_ns", ts}, {"op", op}, {"bytes", bytes}});
}

}  // namespace gpufl::log::detail
