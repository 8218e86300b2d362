#include "export/sqlite_export.hpp"

#include <sqlite3.h>

#include <map>
#include <memory>
#include <set>
#include <type_traits>

#include "core/record_schema.hpp"
#include "export/atomic_output.hpp"
#include "export/map_json.hpp"
#include "log/json_escape.hpp"
#include "log/json_fields.hpp"
#include "log/reader.hpp"

namespace gpufl::exporter {
namespace {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
constexpr bool kNested = std::is_same_v<T, Occupancy> || std::is_same_v<T, DeviceInfo>;

const char* enumText(Engine e) {
  return engineName(e);
}
const char* enumText(CopyKind k) {
  return copyKindName(k);
}
const char* enumText(SyncKind k) {
  return syncKindName(k);
}
const char* enumText(LimitingResource r) {
  return limitingResourceName(r);
}

// Columns of one field: its member name; a Dim3 as three (_x, _y, _z); Occupancy and DeviceInfo
// flattened into their own members; SessionStart::devices not at all (they become rows of the
// device table).
template <typename M>
void columnsOf(std::vector<std::pair<std::string, const char*>>& out, const std::string& name) {
  if constexpr (IsOptional<M>::value) {
    columnsOf<typename M::value_type>(out, name);
  } else if constexpr (std::is_same_v<M, Dim3>) {
    for (const char* axis : {"_x", "_y", "_z"}) out.push_back({name + axis, "INTEGER"});
  } else if constexpr (kNested<M>) {
    const M sample{};
    schema::Schema<M>::forEach(sample, [&](const schema::FieldInfo& f, const auto& member) {
      columnsOf<std::decay_t<decltype(member)>>(out, std::string(f.member));
    });
  } else if constexpr (std::is_same_v<M, std::vector<DeviceInfo>>) {
  } else if constexpr (std::is_enum_v<M> || std::is_same_v<M, std::string>) {
    out.push_back({name, "TEXT"});
  } else if constexpr (std::is_same_v<M, bool> || std::is_integral_v<M>) {
    out.push_back({name, "INTEGER"});
  } else if constexpr (std::is_floating_point_v<M>) {
    out.push_back({name, "REAL"});
  } else {
    out.push_back({name, "TEXT"});  // lists as lines, maps as JSON objects
  }
}

template <typename T>
std::vector<std::pair<std::string, const char*>> columnsOfRecord() {
  std::vector<std::pair<std::string, const char*>> cols{{"sid", "TEXT"}};
  const T sample{};
  schema::Schema<T>::forEach(sample, [&](const schema::FieldInfo& f, const auto& member) {
    columnsOf<std::decay_t<decltype(member)>>(cols, std::string(f.member));
  });
  return cols;
}

template <typename T>
std::string createTable() {
  std::string sql = "CREATE TABLE " + std::string(schema::Schema<T>::type) + " (";
  bool first = true;
  for (const auto& [name, type] : columnsOfRecord<T>()) {
    sql += (first ? "" : ", ") + name + " " + type;
    first = false;
  }
  return sql + ")";
}

class Binder {
 public:
  explicit Binder(sqlite3_stmt* s) : s_(s) {}
  template <typename M>
  void bind(const M& v) {
    if constexpr (IsOptional<M>::value) {
      if (v)
        bind(*v);
      else
        nulls<typename M::value_type>();
    } else if constexpr (std::is_same_v<M, Dim3>) {
      for (uint32_t x : {v.x, v.y, v.z}) sqlite3_bind_int64(s_, ++i_, x);
    } else if constexpr (kNested<M>) {
      schema::Schema<M>::forEach(
          v, [&](const schema::FieldInfo&, const auto& member) { bind(member); });
    } else if constexpr (std::is_same_v<M, std::vector<DeviceInfo>>) {
    } else if constexpr (std::is_enum_v<M>) {
      sqlite3_bind_text(s_, ++i_, enumText(v), -1, SQLITE_STATIC);
    } else if constexpr (std::is_same_v<M, std::string>) {
      sqlite3_bind_text(s_, ++i_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    } else if constexpr (std::is_same_v<M, bool> || std::is_integral_v<M>) {
      sqlite3_bind_int64(s_, ++i_, static_cast<sqlite3_int64>(v));
    } else if constexpr (std::is_floating_point_v<M>) {
      sqlite3_bind_double(s_, ++i_, v);
    } else if constexpr (requires {
                           log::json::objectFields(std::declval<std::string&>(), v.front());
                         }) {
      // A list of objects (incident.in_flight, ...): a JSON array, as the log writes it (the
      // incident_launches view unpacks in_flight into rows).
      std::string json;
      log::json::objectList<"v">(json, v);
      json.erase(0, 5);  // the `,"v":` before the array
      sqlite3_bind_text(s_, ++i_, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
    } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
      std::string lines;
      for (const std::string& l : v) lines += (lines.empty() ? "" : "\n") + l;
      sqlite3_bind_text(s_, ++i_, lines.data(), static_cast<int>(lines.size()), SQLITE_TRANSIENT);
    } else {
      const std::string json = mapJson(v);
      sqlite3_bind_text(s_, ++i_, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
    }
  }

 private:
  template <typename M>
  void nulls() {
    std::vector<std::pair<std::string, const char*>> cols;
    columnsOf<M>(cols, "");
    for (size_t n = 0; n < cols.size(); ++n) sqlite3_bind_null(s_, ++i_);
  }
  sqlite3_stmt* s_;
  int i_ = 0;
};

// Joins and derived columns people query most; the tables stay the log's records as written.
const char* const kViews[] = {
    R"(CREATE VIEW kernels AS
  SELECT e.sid, e.correlation_id, e.start_ns, e.end_ns, e.end_ns - e.start_ns AS dur_ns, e.stream,
         e.scope_path, e.graph_id, e.instrumented, d.id AS def_id, d.name, d.demangled, d.device,
         d.grid_x, d.grid_y, d.grid_z, d.block_x, d.block_y, d.block_z, d.num_regs,
         d.static_shared_bytes, d.dyn_shared_bytes, d.local_bytes, d.occupancy, d.reg_occupancy,
         d.smem_occupancy, d.warp_occupancy, d.block_occupancy, d.max_active_blocks, d.limiting, d.waves
  FROM kernel_event e LEFT JOIN kernel_def d ON d.sid = e.sid AND d.id = e.def_id)",
    R"(CREATE VIEW copies AS
  SELECT *, end_ns - start_ns AS dur_ns FROM memcpy_event)",
    R"(CREATE VIEW scope_full_paths AS
  WITH RECURSIVE up(sid, id, parent, full_path) AS (
    SELECT sid, id, parent, name FROM scope_path WHERE parent = 0
    UNION ALL
    SELECT p.sid, p.id, p.parent, up.full_path || '/' || p.name
    FROM scope_path p JOIN up ON p.sid = up.sid AND p.parent = up.id)
  SELECT sid, id, full_path FROM up)",
    R"(CREATE VIEW scopes AS
  SELECT b.sid, b.id, b.path, f.full_path, b.tid, b.name, b.tag, b.depth, b.ts_ns AS begin_ns,
         e.ts_ns AS end_ns, e.ts_ns - b.ts_ns AS dur_ns
  FROM scope_begin b LEFT JOIN scope_end e ON e.sid = b.sid AND e.id = b.id
  LEFT JOIN scope_full_paths f ON f.sid = b.sid AND f.id = b.path)",
    // One row per incident with its thread's scope path by name; its lists stay JSON arrays
    // (in_flight, blocked, last_kernels) and incident_launches unpacks in_flight.
    R"(CREATE VIEW incidents AS
  SELECT i.*, f.full_path AS scope
  FROM incident i LEFT JOIN scope_full_paths f ON f.sid = i.sid AND f.id = i.scope_path)",
    R"(CREATE VIEW incident_launches AS
  SELECT i.sid, i.ts_ns AS incident_ts_ns, i.kind AS incident_kind,
         json_extract(j.value, '$.corr') AS correlation_id, json_extract(j.value, '$.kind') AS kind,
         json_extract(j.value, '$.name') AS name, coalesce(json_extract(j.value, '$.stream'), 0) AS stream,
         coalesce(json_extract(j.value, '$.stream_handle'), 0) AS stream_handle,
         coalesce(json_extract(j.value, '$.context'), 0) AS context,
         coalesce(json_extract(j.value, '$.tid'), 0) AS tid,
         coalesce(json_extract(j.value, '$.scope'), 0) AS scope_path, f.full_path AS scope,
         coalesce(json_extract(j.value, '$.stack'), 0) AS stack_id,
         json_extract(j.value, '$.launch_ns') AS launch_ns,
         coalesce(json_extract(j.value, '$.suspect'), 0) AS suspect
  FROM incident i JOIN json_each(i.in_flight) j
  LEFT JOIN scope_full_paths f ON f.sid = i.sid AND f.id = coalesce(json_extract(j.value, '$.scope'), 0))",
};

const char* const kIndexes[] = {
    "CREATE INDEX kernel_event_def ON kernel_event(sid, def_id)",
    "CREATE INDEX kernel_event_start ON kernel_event(sid, start_ns)",
    "CREATE INDEX kernel_event_scope ON kernel_event(sid, scope_path)",
    "CREATE UNIQUE INDEX kernel_def_id ON kernel_def(sid, id)",
    "CREATE INDEX memcpy_event_start ON memcpy_event(sid, start_ns)",
    "CREATE INDEX scope_begin_id ON scope_begin(sid, id)",
    "CREATE INDEX scope_begin_path ON scope_begin(sid, path)",
    "CREATE INDEX scope_end_id ON scope_end(sid, id)",
    "CREATE INDEX scope_path_id ON scope_path(sid, id)",
    "CREATE INDEX sass_metric_func ON sass_metric(sid, func)",
    "CREATE INDEX pc_sample_func ON pc_sample(sid, func)",
    "CREATE INDEX system_sample_ts ON system_sample(sid, gpu, ts_ns)",
};

// Inserts each event into its record type's table.
class SqliteWriter : public EventVisitor {
 public:
  explicit SqliteWriter(sqlite3* db) : db_(db) {
    schema::forEachRecordType([&]<typename T>() {
      std::string sql = "INSERT INTO " + std::string(schema::Schema<T>::type) + " VALUES (";
      const size_t n = columnsOfRecord<T>().size();
      for (size_t i = 0; i < n; ++i) sql += i ? ",?" : "?";
      sql += ")";
      sqlite3_stmt* stmt = nullptr;
      if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK && error.empty())
        error = sql + ": " + sqlite3_errmsg(db_);
      stmts_[schema::Schema<T>::type] = stmt;
    });
  }
  ~SqliteWriter() override {
    for (auto& [type, stmt] : stmts_) sqlite3_finalize(stmt);
  }

  // Every channel repeats session_start and session_end: one row each per session (the session_end
  // with the largest counts, as the reader's integrity check takes).
  void onSessionStart(const SessionStart& e) override {
    const auto [from, fresh] = started_.emplace(e.sid, std::make_pair(prefix_index_, prefix_));
    if (!fresh) {
      // Rows are keyed by sid: a session given twice (the same prefix twice, or a copy of a log)
      // would mix its rows with its copy's.
      if (from->second.first != prefix_index_ && duplicate.empty())
        duplicate = "session " + e.sid + " of '" + prefix_ + "' is already exported from '" +
                    from->second.second +
                    "': each session goes into the database once (rows are keyed "
                    "by sid)";
      return;
    }
    insert(e);
    for (const DeviceInfo& d : e.devices) insert(DeviceEvent{e.sid, d});
  }
  void onSessionEnd(const SessionEnd& e) override {
    auto [it, fresh] = ends_.try_emplace(e.sid, e);
    if (!fresh && e.kernels + e.memcpys + e.scopes >
                      it->second.kernels + it->second.memcpys + it->second.scopes)
      it->second = e;
  }
  void finish() {
    for (const auto& [sid, e] : ends_) insert(e);
    ends_.clear();
  }
  void onNote(const Note& e) override { insert(e); }
  void onDevice(const DeviceEvent& e) override { insert(e); }
  // A kernel_def the session already defined: its records are in the log twice (a copied log),
  // which the UNIQUE index on kernel_def(sid, id) would refuse with SQLite's own words at the end.
  void onKernelDef(const KernelDef& e) override {
    if (!defs_.emplace(e.sid, e.id).second) {
      if (duplicate.empty())
        duplicate = "session " + e.sid + " of '" + prefix_ + "' defines kernel " +
                    std::to_string(e.id) +
                    " twice: its records appear twice under the prefix (a log copied into "
                    "itself?); each session goes into the database once";
      return;
    }
    insert(e);
  }
  void onKernel(const KernelEvent& e) override { insert(e); }
  void onMemcpy(const MemcpyEvent& e) override { insert(e); }
  void onSync(const SyncEvent& e) override { insert(e); }
  void onMemory(const MemoryEvent& e) override { insert(e); }
  void onStack(const StackDef& e) override { insert(e); }
  void onScopePath(const ScopePath& e) override { insert(e); }
  void onScopeBegin(const ScopeBegin& e) override { insert(e); }
  void onScopeEnd(const ScopeEnd& e) override { insert(e); }
  void onGpuSample(const GpuSample& e) override { insert(e); }
  void onHostSample(const HostSample& e) override { insert(e); }
  void onSassMetric(const SassMetric& e) override { insert(e); }
  void onPcSample(const PcSample& e) override { insert(e); }
  void onRangeCounters(const RangeCounters& e) override { insert(e); }
  void onBenchmark(const BenchmarkResult& e) override { insert(e); }
  void onIncident(const Incident& e) override { insert(e); }
  void onHealth(const Health& e) override { insert(e); }

  void beginPrefix(const std::string& prefix) {
    prefix_ = prefix;
    ++prefix_index_;
  }

  std::string error;
  std::string duplicate;  // why the input holds a session twice; empty when it does not
  uint64_t rows = 0;

 private:
  template <typename T>
  void insert(const T& e) {
    sqlite3_stmt* stmt = stmts_[schema::Schema<T>::type];
    if (!stmt) return;
    Binder b(stmt);
    b.bind(e.sid);
    schema::Schema<T>::forEach(
        e, [&](const schema::FieldInfo&, const auto& member) { b.bind(member); });
    if (sqlite3_step(stmt) != SQLITE_DONE && error.empty())
      error = std::string(schema::Schema<T>::type) + ": " + sqlite3_errmsg(db_);
    else
      ++rows;
    sqlite3_reset(stmt);
  }
  sqlite3* db_;
  std::map<std::string_view, sqlite3_stmt*> stmts_;
  std::map<std::string, std::pair<size_t, std::string>> started_;  // sid -> its prefix (n-th, name)
  std::set<std::pair<std::string, uint32_t>> defs_;                // (sid, kernel_def id) inserted
  std::string prefix_;
  size_t prefix_index_ = 0;
  std::map<std::string, SessionEnd> ends_;
};

bool exec(sqlite3* db, const std::string& sql, std::string* error) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return true;
  if (error) *error = sql.substr(0, sql.find('(')) + ": " + (message ? message : "failed");
  sqlite3_free(message);
  return false;
}

}  // namespace

std::vector<std::string> sqliteSchema() {
  std::vector<std::string> out;
  schema::forEachRecordType([&]<typename T>() { out.push_back(createTable<T>()); });
  out.insert(out.end(), std::begin(kViews), std::end(kViews));
  out.insert(out.end(), std::begin(kIndexes), std::end(kIndexes));
  return out;
}

SqliteExportResult exportSqlite(const std::vector<std::string>& prefixes,
                                const std::string& session, const std::string& db_path) {
  SqliteExportResult r;
  // Built in a new file beside the path, renamed over it once complete: a failure leaves no
  // partial database (and an older one at the path as it was); a link at the path is refused.
  AtomicOutput out(db_path);
  if (!out.ok()) {
    r.error = out.error();
    return r;
  }
  out.closeFd();  // SQLite opens it by name; a second descriptor closed later would drop its locks
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(out.tempPath().c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
                      nullptr) != SQLITE_OK) {
    r.error = db_path + ": " + (raw ? sqlite3_errmsg(raw) : "cannot open");
    sqlite3_close(raw);
    return r;
  }
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  // A fresh file written once: no journal needed; indexes are built after the rows (faster than per
  // row).
  if (!exec(raw, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", &r.error)) return r;
  for (const std::string& sql : sqliteSchema())
    if (sql.starts_with("CREATE TABLE") && !exec(raw, sql, &r.error)) return r;
  {
    SqliteWriter writer(raw);
    if (!writer.error.empty()) {
      r.error = writer.error;
      return r;
    }
    for (const std::string& prefix : prefixes) {
      log::ReadOptions options;
      options.session = session;
      writer.beginPrefix(prefix);
      const log::ReadResult read = log::readPrefix(prefix, options, writer);
      for (const log::ReadWarning& w : read.warnings) r.warnings.push_back(log::formatWarning(w));
      if (!read.any_readable) {
        r.error = "nothing readable under '" + prefix + "'";
        return r;
      }
      if (!writer.duplicate.empty()) {
        r.error = writer.duplicate;
        return r;
      }
      ++r.sessions;
      if (!writer.error.empty()) {
        r.error = db_path + ": " + writer.error;
        return r;
      }
    }
    writer.finish();
    r.records = writer.rows;
  }
  for (const std::string& sql : sqliteSchema())
    if (!sql.starts_with("CREATE TABLE") && !exec(raw, sql, &r.error)) return r;
  if (!exec(raw, "COMMIT", &r.error)) return r;
  if (sqlite3_close(db.release()) != SQLITE_OK) {
    r.error = db_path + ": cannot close the database";
    return r;
  }
  if (!out.commit(&r.error)) return r;
  r.ok = true;
  return r;
}

}  // namespace gpufl::exporter
