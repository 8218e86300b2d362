// The parsers of every record type but kernel_event (whose chain decoder is in record_parser.cpp).
// Most are generated from the field tables (core/record_schema.hpp); required fields follow the
// tables' presence, descriptive fields are optional so that a partially written writer version
// still reads.
#include "core/record_schema.hpp"
#include "log/record_fields.hpp"

namespace gpufl::log::detail {
namespace {

// Pieces of the parsers generated from the field tables (core/record_schema.hpp).
#define GFL_HAVE_FIELD_(member, key_, presence, unit) bool member = false;
#define GFL_READ_FIELD_(member, key_, presence, unit)             \
  else if (readField(key, key_, v, c, out.member, have.member)) { \
  }
#define GFL_READ_MEMBER_(member, key_, presence, unit) \
  else if (key == key_) c.field(v, key, out.member);
#define GFL_REQUIRE_FIELD_(member, key_, presence, unit) \
  {key_, schema::Presence::presence != schema::Presence::Required || have.member},

// Reads the value into `m` when `key` is the field's; true when it was (`have`: read correctly).
template <typename M>
bool readField(std::string_view key, std::string_view field_key, od::value& v, RecordContext& c,
               M& m, bool& have) {
  if (key != field_key) return false;
  have = c.field(v, key, m);
  return true;
}

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

// One object of a list whose objects are described by a field table (incident.in_flight, ...): its
// fields by the table, unknown keys skipped, required ones checked.
#define GFL_OBJECT_FIELD_(member, key_, presence, unit) \
  else if (key == key_) have.member = c.field(v, key, out.member);
#define GFL_PARSE_OBJECT_(T)                                                         \
  void parseObject(od::object& obj, RecordContext& c, T& out) {                      \
    struct {                                                                         \
      GFL_FIELDS_##T(GFL_HAVE_FIELD_)                                                \
    } have;                                                                          \
    forEachMember(obj, c, [&](std::string_view key, od::value& v) {                  \
      if (false) {                                                                   \
      }                                                                              \
      GFL_FIELDS_##T(GFL_OBJECT_FIELD_)                                              \
    });                                                                              \
    if (c.outcome() == Outcome::Ok) c.require({GFL_FIELDS_##T(GFL_REQUIRE_FIELD_)}); \
  }
GFL_PARSE_OBJECT_(InFlightLaunch)
GFL_PARSE_OBJECT_(BlockedThread)
GFL_PARSE_OBJECT_(LastKernel)
GFL_PARSE_OBJECT_(HealthExample)
#undef GFL_PARSE_OBJECT_
#undef GFL_OBJECT_FIELD_

// A list of such objects; a problem names the list ("in_flight.corr").
template <typename N>
requires requires(od::object& o, RecordContext& c, N& n) {
  parseObject(o, c, n);
}
bool readField(std::string_view key, std::string_view field_key, od::value& v, RecordContext& c,
               std::vector<N>& m, bool& have) {
  if (key != field_key) return false;
  od::array array;
  if (auto e = v.get_array().get(array)) {
    if (e == simdjson::INCORRECT_TYPE)
      c.fieldError(key, "not an array");
    else
      c.syntax(e);
    return true;
  }
  const std::string prefix = std::string(key) + ".";
  c.setNamePrefix(prefix);
  for (auto item : array) {
    od::object obj;
    if (auto e = item.get_object().get(obj)) {
      if (e == simdjson::INCORRECT_TYPE)
        c.fieldError("", "not an object");
      else
        c.syntax(e);
      break;
    }
    parseObject(obj, c, m.emplace_back());
    if (c.outcome() != Outcome::Ok) break;
  }
  c.setNamePrefix("");
  have = c.outcome() == Outcome::Ok;
  return true;
}

#define GFL_READ_OCCUPANCY_(member, key_, presence, unit) \
  else if (key == key_) read = c.field(v, key, o.member);
// kernel_def's occupancy, flattened into the record: any of its keys (present when one is read).
bool readField(std::string_view key, std::string_view, od::value& v, RecordContext& c,
               std::optional<Occupancy>& m, bool& have) {
  Occupancy o = m.value_or(Occupancy{});
  bool read = false;
  if (false) {
  }
  GFL_FIELDS_Occupancy(GFL_READ_OCCUPANCY_) else return false;
  if (read) {
    m = o;
    have = true;
  }
  return true;
}
#undef GFL_READ_OCCUPANCY_

// session_start.devices.
bool readField(std::string_view key, std::string_view field_key, od::value& v, RecordContext& c,
               std::vector<DeviceInfo>& m, bool& have) {
  if (key != field_key) return false;
  parseDevices(v, c, m);
  have = c.outcome() == Outcome::Ok;
  return true;
}

// What a record's fields imply beyond their values, once all are read (before the required ones are
// checked): a "dur_ns" row, read into end_ns, was the duration (ndjson_format.cpp's recordField);
// nothing else, except where an overload below says.
template <typename T, typename Have>
void finishRecord(T& out, const Have& have, RecordContext& c) {
  if constexpr (requires {
                  have.end_ns;
                  out.start_ns;
                }) {
    if (!have.end_ns) return;
    if (out.end_ns < 0) c.fieldError("dur_ns", "is negative");
    out.end_ns = wrapAdd(out.start_ns, out.end_ns);
  }
}

// A writer that predates `demangled` wrote only the name.
template <typename Have>
void finishRecord(KernelDef& out, const Have& have, RecordContext&) {
  if (!have.demangled) out.demangled = out.name;
}

}  // namespace

// The records whose fields are read exactly as their table lists them: each key to its member by
// the member's type, unknown keys skipped, then the first Required field that is missing (in table
// order) reported. The others are hand-written where the wire form is not the members' values as
// such (see ndjson_format.cpp).
#define GFL_PARSE_RECORD_(T)                                       \
  void parseRecord(od::object& obj, RecordContext& c, T& out) {    \
    struct {                                                       \
      GFL_FIELDS_##T(GFL_HAVE_FIELD_)                              \
    } have;                                                        \
    forEachField(obj, c, [&](std::string_view key, od::value& v) { \
      if (false) {                                                 \
      }                                                            \
      GFL_FIELDS_##T(GFL_READ_FIELD_)                              \
    });                                                            \
    finishRecord(out, have, c);                                    \
    c.require({GFL_FIELDS_##T(GFL_REQUIRE_FIELD_)});               \
  }

GFL_PARSE_RECORD_(SessionStart)

void parseRecord(od::object& obj, RecordContext& c, DeviceEvent& out) {
  bool id = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "id")
      id = c.number(v, key, out.device.id);
    else
      deviceField(key, v, c, out.device);
  });
  c.require({{"id", id}});
}

GFL_PARSE_RECORD_(SessionEnd)

GFL_PARSE_RECORD_(Note)

GFL_PARSE_RECORD_(KernelDef)

GFL_PARSE_RECORD_(StackDef)

GFL_PARSE_RECORD_(ScopePath)

GFL_PARSE_RECORD_(ScopeBegin)

GFL_PARSE_RECORD_(ScopeEnd)

GFL_PARSE_RECORD_(GpuSample)

GFL_PARSE_RECORD_(HostSample)

GFL_PARSE_RECORD_(SassMetric)

GFL_PARSE_RECORD_(PcSample)

GFL_PARSE_RECORD_(RangeCounters)

GFL_PARSE_RECORD_(BenchmarkResult)

GFL_PARSE_RECORD_(Incident)

GFL_PARSE_RECORD_(Health)

GFL_PARSE_RECORD_(SyncEvent)

void parseRecord(od::object& obj, RecordContext& c, MemoryEvent& out) {
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

// Hand-written (like the writer's formatRecord): the end travels as dur_ns (or end_ns from an
// older writer), and a memset_event (out.is_memset, set by the caller from the type) has no kind.
void parseRecord(od::object& obj, RecordContext& c, MemcpyEvent& out) {
  int64_t dur = 0, end = 0;
  bool bytes = false, start = false, have_dur = false, have_end = false;
  forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "bytes")
      bytes = c.number(v, key, out.bytes);
    else if (key == "start_ns")
      start = c.number(v, key, out.start_ns);
    else if (key == "dur_ns")
      have_dur = c.number(v, key, dur);
    else if (key == "end_ns")
      have_end = c.number(v, key, end);
    else if (key == "kind")
      c.field(v, key, out.kind);
    else if (key == "device")
      c.number(v, key, out.device);
    else if (key == "stream")
      c.number(v, key, out.stream);
    else if (key == "corr")
      c.number(v, key, out.correlation_id);
    else if (key == "scope")
      c.number(v, key, out.scope_path);
    else if (key == "src_kind")
      c.string(v, key, out.src_kind);
    else if (key == "dst_kind")
      c.string(v, key, out.dst_kind);
    else if (key == "value")
      c.number(v, key, out.value);
  });
  if (dur < 0) c.fieldError("dur_ns", "is negative");
  c.require({{"bytes", bytes}, {"start_ns", start}, {"dur_ns", have_dur || have_end}});
  if (out.is_memset) out.kind = CopyKind::Unknown;
  out.end_ns = have_dur ? wrapAdd(out.start_ns, dur) : end;
}

}  // namespace gpufl::log::detail
