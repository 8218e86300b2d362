// load_session(): SessionColumns -> Python dicts of numpy arrays. Column vectors are moved to the
// heap and handed to numpy with a capsule that frees them, so no row is copied.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdlib>
#include <memory>
#include <type_traits>
#include <variant>

#include "bindings.hpp"
#include "core/events.hpp"
#include "core/record_schema.hpp"
#include "session_loader.hpp"

namespace nb = nanobind;

namespace gpufl::py {
namespace {

template <typename T>
nb::object array(std::vector<T>& v) {
  auto* heap = new std::vector<T>(std::move(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const size_t shape[1] = {heap->size()};
  nb::ndarray<nb::numpy, T, nb::ndim<1>> a(heap->data(), 1, shape, owner);
  return nb::cast(a, nb::rv_policy::reference);
}

// A malloc'd buffer of n values, handed to numpy with a capsule that frees it.
template <typename T>
nb::object owned(void* data, size_t n) {
  const size_t shape[1] = {n};
  nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
  nb::ndarray<nb::numpy, T, nb::ndim<1>> a(static_cast<T*>(data), 1, shape, owner);
  return nb::cast(a, nb::rv_policy::reference);
}

template <typename T>
nb::object array(PodColumn<T>& c) {
  const size_t n = c.size();
  return owned<T>(c.release(), n);
}

// uint8, uint16, uint32 or uint64, as narrow as the column's values allowed.
nb::object array(NarrowColumn& c) {
  const size_t n = c.size();
  const int width = c.width();
  void* data = c.release();
  switch (width) {
    case 1:
      return owned<uint8_t>(data, n);
    case 2:
      return owned<uint16_t>(data, n);
    case 4:
      return owned<uint32_t>(data, n);
    default:
      return owned<uint64_t>(data, n);
  }
}

// A string column: (codes int32 array, list of distinct values); Python makes it a pandas
// Categorical.
nb::object strings(StringColumn& c) {
  nb::list values;
  for (const auto& s : c.values) values.append(nb::str(s.data(), s.size()));
  return nb::make_tuple(array(c.codes), values);
}

nb::list stringList(const std::vector<std::string>& v) {
  nb::list out;
  for (const auto& s : v) out.append(nb::str(s.data(), s.size()));
  return out;
}

// A table generated from its record's field table: every column under its key (record_columns.hpp).
template <typename T>
nb::dict recordColumns(RecordColumns<T>& t) {
  nb::dict d;
  for (auto& [key, column] : t.columns()) {
    const nb::str name(key.data(), key.size());
    std::visit(
        [&](auto& c) {
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(c)>, StringColumn>)
            d[name] = strings(c);
          else
            d[name] = array(c);
        },
        column);
  }
  return d;
}

// A list inside incident records: its generated columns and `incident`, the row of its incident.
template <typename T>
nb::dict incidentList(IncidentListTable<T>& t) {
  nb::dict d = recordColumns(t.rows);
  d["incident"] = array(t.incident);
  return d;
}

nb::dict kernels(KernelTable& t) {
  nb::dict d;
  d["k"] = array(t.k);
  d["stream"] = array(t.stream);
  d["scope"] = array(t.scope);
  d["corr"] = array(t.corr);
  d["start_ns"] = array(t.start_ns);
  d["dur_ns"] = array(t.dur_ns);
  d["stack"] = array(t.stack);
  d["graph"] = array(t.graph);
  d["instr"] = array(t.instr);
  return d;
}

nb::dict syncs(SyncTable& t) {
  nb::dict d;
  d["kind"] = strings(t.kind);
  d["stream"] = array(t.stream);
  d["corr"] = array(t.corr);
  d["start_ns"] = array(t.start_ns);
  d["end_ns"] = array(t.end_ns);
  d["scope"] = array(t.scope);
  return d;
}

nb::dict memoryEvents(MemoryTable& t) {
  nb::dict d;
  d["ts_ns"] = array(t.ts_ns);
  d["is_free"] = array(t.is_free);
  d["memory_kind"] = strings(t.memory_kind);
  d["bytes"] = array(t.bytes);
  d["address"] = array(t.address);
  d["device"] = array(t.device);
  d["stream"] = array(t.stream);
  d["corr"] = array(t.corr);
  d["scope"] = array(t.scope);
  return d;
}

nb::dict memcpys(MemcpyTable& t) {
  nb::dict d;
  d["kind"] = strings(t.kind);
  d["is_memset"] = array(t.is_memset);
  d["bytes"] = array(t.bytes);
  d["device"] = array(t.device);
  d["stream"] = array(t.stream);
  d["corr"] = array(t.corr);
  d["start_ns"] = array(t.start_ns);
  d["end_ns"] = array(t.end_ns);
  d["scope"] = array(t.scope);
  d["src_kind"] = strings(t.src_kind);
  d["dst_kind"] = strings(t.dst_kind);
  d["value"] = array(t.value);
  return d;
}

nb::dict scopePaths(ScopePathTable& t) {
  nb::dict d;
  d["p"] = array(t.p);
  d["parent"] = array(t.parent);
  d["name"] = strings(t.name);
  d["depth"] = array(t.depth);
  return d;
}

nb::dict scopes(ScopeTable& t) {
  nb::dict d;
  d["id"] = array(t.id);
  d["p"] = array(t.p);
  d["name"] = strings(t.name);
  d["tag"] = strings(t.tag);
  d["tid"] = array(t.tid);
  d["depth"] = array(t.depth);
  d["start_ns"] = array(t.start_ns);
  d["end_ns"] = array(t.end_ns);
  return d;
}

nb::dict rangeCounters(RangeCounterTable& t) {
  nb::dict d;
  d["range"] = strings(t.range);
  d["kernel"] = strings(t.kernel);
  d["p"] = array(t.p);
  d["instance"] = array(t.instance);
  d["metric"] = strings(t.metric);
  d["value"] = array(t.value);
  return d;
}

nb::dict stacks(StackTable& t) {
  nb::dict d;
  d["id"] = array(t.id);
  d["frames"] = stringList(t.frames);
  return d;
}

// Every field of the record's table, by its JSON key (a column even when there are no benchmarks).
nb::dict benchmarks(BenchmarkTable& t) {
  nb::dict d;
  for (const schema::FieldInfo& f : schema::Schema<BenchmarkResult>::fields) {
    const std::string key(f.key);
    const nb::str name(key.data(), key.size());
    if (f.kind == schema::Kind::String || f.kind == schema::Kind::StringList)
      d[name] = strings(t.strings[key]);
    else
      d[name] = array(t.numbers[key]);
  }
  return d;
}

#define GFL_DEVICE_ITEM_(member, key, presence, unit) d[key] = x.member;
// Every field of the device's table (core/record_schema.hpp), by its JSON key.
nb::dict device(const DeviceInfo& x) {
  nb::dict d;
  GFL_FIELDS_DeviceInfo(GFL_DEVICE_ITEM_) return d;
}
#undef GFL_DEVICE_ITEM_

template <typename Map>
nb::dict mapToDict(const Map& m) {
  nb::dict d;
  for (const auto& [k, v] : m) d[nb::str(k.data(), k.size())] = v;
  return d;
}

nb::dict sessionInfo(const SessionColumns& c) {
  nb::dict d;
  const SessionStart& s = c.start;
  d["has_start"] = c.have_start;
  d["has_end"] = c.have_end;
  d["sid"] = s.sid;
  d["session_id"] = s.session_id;
  d["schema"] = s.schema;
  d["app"] = s.app;
  d["pid"] = s.pid;
  d["host"] = s.host;
  d["version"] = s.version;
  d["engine"] = engineName(s.engine);
  d["start_ns"] = s.start_ns;
  d["start_unix_ns"] = s.start_unix_ns;
  d["options_json"] = mapToDict(s.options);  // option -> JSON text
  nb::list devs;
  for (const auto& x : s.devices) devs.append(device(x));
  d["devices"] = devs;
  if (c.have_end) {
    const SessionEnd& e = c.end;
    d["end_ns"] = e.end_ns;
    d["kernels_written"] = e.kernels;
    d["memcpys_written"] = e.memcpys;
    d["scopes_written"] = e.scopes;
    d["dropped"] = mapToDict(e.dropped);
    d["overhead_ns"] = mapToDict(e.overhead_ns);
    d["cpu_time_ns"] = e.cpu_time_ns;
    d["buffers"] = e.buffers;
    d["bytes_written"] = e.bytes_written;
  } else {
    d["end_ns"] = nb::none();
  }
  d["last_ts_ns"] = c.last_ts_ns == std::numeric_limits<int64_t>::min()
                        ? nb::object(nb::none())
                        : nb::object(nb::int_(c.last_ts_ns));
  d["unmatched_scope_ends"] = c.scopes.unmatched_ends;
  return d;
}

nb::dict readInfo(const log::ReadResult& r) {
  nb::dict d;
  d["found_files"] = r.found_files;
  d["any_readable"] = r.any_readable;
  d["chosen_sid"] = r.chosen_sid;
  nb::list sessions;
  for (const auto& s : r.sessions) {
    nb::dict x;
    x["sid"] = s.sid;
    x["session_id"] = s.session_id;
    x["app"] = s.app;
    x["start_ns"] = s.start_ns;
    x["start_unix_ns"] = s.start_unix_ns;
    sessions.append(x);
  }
  d["sessions"] = sessions;
  nb::list warnings;
  for (const auto& w : r.warnings) warnings.append(nb::make_tuple(w.file, w.line, w.message));
  d["warnings"] = warnings;
  d["warning_count"] = r.warning_count;
  d["records"] = r.records;
  d["files"] = stringList(r.files);
  return d;
}

nb::dict loadSessionPy(const std::string& prefix, const std::string& session, size_t max_warnings) {
  auto result = std::make_unique<LoadResult>();
  {
    nb::gil_scoped_release release;
    loadSession(prefix, session, max_warnings, *result);
  }
  SessionColumns& c = result->columns;
  nb::dict tables;
  nb::dict defs = recordColumns(c.kernel_defs);
  defs["short_name"] = strings(c.kernel_short_names);
  tables["kernel_defs"] = defs;
  tables["kernels"] = kernels(c.kernels);
  tables["memcpy"] = memcpys(c.memcpy);
  tables["syncs"] = syncs(c.syncs);
  tables["memory"] = memoryEvents(c.memory);
  tables["scope_paths"] = scopePaths(c.scope_paths);
  tables["scopes"] = scopes(c.scopes);
  tables["gpu_samples"] = recordColumns(c.gpu_samples);
  tables["host_samples"] = recordColumns(c.host_samples);
  tables["sass_metrics"] = recordColumns(c.sass);
  tables["pc_samples"] = recordColumns(c.pc_samples);
  tables["range_counters"] = rangeCounters(c.range_counters);
  tables["notes"] = recordColumns(c.notes);
  tables["stacks"] = stacks(c.stacks);
  tables["benchmarks"] = benchmarks(c.benchmarks);
  tables["incidents"] = recordColumns(c.incidents);
  tables["incident_launches"] = incidentList(c.incident_launches);
  tables["incident_blocked"] = incidentList(c.incident_blocked);
  tables["incident_last_kernels"] = incidentList(c.incident_last_kernels);
  tables["health"] = recordColumns(c.health);
  nb::dict examples = recordColumns(c.health_examples.rows);
  examples["health"] = array(c.health_examples.incident);  // the row of its health record
  tables["health_examples"] = examples;
  nb::dict out;
  out["session"] = sessionInfo(c);
  out["read"] = readInfo(result->read);
  out["tables"] = tables;
  return out;
}

// The rows of T's field table; a nested object's rows (a device, kernel_def's occupancy) follow its
// own row, with `parent` naming it.
template <typename T>
void schemaRows(nb::list& rows) {
  schema::forEachRow<T>([&](const schema::FieldInfo& f, std::string_view parent) {
    nb::dict row;
    row["key"] = std::string(f.key);
    row["member"] = std::string(f.member);
    row["presence"] = std::string(schema::presenceName(f.presence));
    row["unit"] = std::string(f.unit);
    row["kind"] = std::string(schema::kindName(f.kind));
    row["parent"] = std::string(parent);
    rows.append(row);
  });
}

nb::dict recordSchema() {
  nb::dict out;
  schema::forEachRecordType([&]<typename T>() {
    nb::dict record;
    nb::list rows;
    schemaRows<T>(rows);
    record["channel"] = std::string(schema::Schema<T>::channel);
    record["fields"] = rows;
    out[nb::str(schema::Schema<T>::type.data(), schema::Schema<T>::type.size())] = record;
  });
  return out;
}

}  // namespace

void bindLoader(nb::module_& m) {
  m.def("record_schema", &recordSchema,
        "The log format's field tables (src/core/record_schema.hpp): {type: {'channel': str, "
        "'fields': [{'key',\n"
        "'member', 'presence', 'unit', 'kind', 'parent'}]}}.");
  m.def("load_session", &loadSessionPy, nb::arg("prefix"), nb::arg("session") = "",
        nb::arg("max_warnings") = 100,
        "Reads one session of a log prefix (latest when `session` is empty) into column tables.\n"
        "Returns {'session': dict, 'read': dict, 'tables': {name: {column: ndarray | (codes, "
        "values)}}}.");
}

}  // namespace gpufl::py
