#include "export/parquet_export.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "core/event_visitor.hpp"
#include "export/parquet_columns.hpp"
#include "log/json_escape.hpp"
#include "log/reader.hpp"

namespace gpufl::exporter {
namespace {

namespace pc = parquet_columns;

// The table of a record type: named for what its rows are. A record type not listed here (a new
// one, such as the incidents the recorder will write) gets its type name in the plural, with the
// columns of its field table, and needs no code in this file.
std::string tableName(std::string_view type) {
  static const std::map<std::string_view, std::string_view> kNames{
      {"session_start", "sessions"},    {"session_end", "session_ends"},
      {"kernel_event", "kernels"},      {"memcpy_event", "copies"},  // memsets too (is_memset)
      {"sync_event", "syncs"},          {"memory_event", "memory_events"},
      {"scope_begin", "scopes"},  // joined with its scope_end (below)
      {"system_sample", "gpu_samples"}, {"range_counters", "range_counters"},
  };
  if (auto it = kNames.find(type); it != kNames.end()) return std::string(it->second);
  if (type == "health") return "health";  // a mass noun: gpufl's health, one row per period
  return std::string(type) + (type.ends_with('s') ? "" : "s");
}

// scopes: a scope_begin with its end. `start_ns` is the begin's ts_ns; `dur_ns` null while the
// log has no end for it (the program died inside the scope).
std::vector<pc::Column> scopeColumns() {
  std::vector<pc::Column> cols = pc::ofRecord<ScopeBegin>();
  for (pc::Column& c : cols)
    if (c.spec.name == "ts_ns") c.spec.name = "start_ns";
  cols.push_back({{"dur_ns", parquet::ColumnType::Int64, true}, "ns"});
  return cols;
}

template <typename T>
std::vector<pc::Column> columnsOf() {
  if constexpr (std::is_same_v<T, ScopeBegin>)
    return scopeColumns();
  else
    return pc::ofRecord<T>();
}

struct Table {
  ParquetTableSchema schema;
  std::unique_ptr<parquet::FileWriter> file;
};

// The file's key/value metadata: what it holds and the unit of each column that has one.
std::vector<std::pair<std::string, std::string>> fileMetadata(const ParquetTableSchema& s) {
  std::string units = "{";
  for (size_t i = 0; i < s.columns.size(); ++i) {
    if (s.units[i].empty()) continue;
    if (units.size() > 1) units += ',';
    log::appendJsonString(units, s.columns[i].name);
    units += ':';
    log::appendJsonString(units, s.units[i]);
  }
  return {{"gpufl.table", s.table}, {"gpufl.record", s.record}, {"gpufl.units", units + "}"}};
}

// The position of record type T in record_list.hpp (the sink's table of it).
template <typename T>
constexpr size_t kRecordIndex = [] {
  size_t i = 0, index = SIZE_MAX;
#define GFL_PARQUET_INDEX_(U, type, channel, on) \
  if (std::is_same_v<T, U>) index = i;           \
  ++i;
  GFL_RECORDS(GFL_PARQUET_INDEX_)
#undef GFL_PARQUET_INDEX_
  return index;
}();

// What all the tables' row groups may buffer together before the fullest is written out early. Each
// table also ends a row group at its own row count; without this shared bound, tables that fill
// slowly (a copy every few dozen kernels, a scope every few dozen) would each hold up to a full row
// group, and the exporter's memory would grow with the session until they first fill (measured:
// 106 MB at 10M kernels, 218 MB at 100M). A flushed table gives its buffers' memory back.
constexpr size_t kBufferBudget = size_t{32} << 20;
constexpr uint64_t kBudgetCheckRows = 16384;

class ParquetSink : public EventVisitor {
 public:
  ParquetSink(const std::string& dir, const parquet::WriterOptions& options) {
    std::vector<ParquetTableSchema> schemas = parquetSchema();
    size_t next = 0;
    schema::forEachRecordType([&]<typename T>() {
      tables_.emplace_back();
      if constexpr (std::is_same_v<T, ScopeEnd>) return;  // in scopes, with its begin
      Table& t = tables_.back();
      t.schema = std::move(schemas[next++]);
      t.file = std::make_unique<parquet::FileWriter>(
          (std::filesystem::path(dir) / (t.schema.table + ".parquet")).string(), t.schema.columns,
          options);
      if (!t.file->ok() && error.empty()) error = t.file->error();
    });
  }

  // Every record type to handle(), so that one added to record_list.hpp (incidents) gets its table
  // with no code here.
#define GFL_PARQUET_HANDLER_(T, type, channel, on) \
  void on(const T& e) override {                   \
    handle(e);                                     \
  }
  GFL_RECORDS(GFL_PARQUET_HANDLER_)
#undef GFL_PARQUET_HANDLER_

  // After each prefix: the scopes it never ended, with no duration.
  void endPrefix() {
    std::map<uint64_t, ScopeBegin> open(open_scopes_.begin(), open_scopes_.end());
    for (const auto& [id, begin] : open) writeScope(begin, std::nullopt);
    open_scopes_.clear();
  }

  // Writes the session_end rows and closes every file.
  void finish(ParquetExportResult& r) {
    for (const auto& [sid, e] : ends_) add(e);
    ends_.clear();
    for (Table& t : tables_) {
      if (!t.file) continue;
      if (!t.file->close(fileMetadata(t.schema)) && error.empty()) error = t.file->error();
      r.tables.emplace_back(t.schema.table, t.file->rows());
    }
  }

  std::string error;
  uint64_t unmatched_ends = 0;

 private:
  template <typename T>
  void handle(const T& e) {
    if constexpr (std::is_same_v<T, SessionStart>) {
      // Every channel repeats session_start and session_end: one row each per session (the
      // session_end with the largest counts, as the reader's integrity check takes).
      if (!started_.insert(e.sid).second) return;
      add(e);
      for (const DeviceInfo& d : e.devices) add(DeviceEvent{e.sid, d});
    } else if constexpr (std::is_same_v<T, SessionEnd>) {
      auto [it, fresh] = ends_.try_emplace(e.sid, e);
      if (!fresh && e.kernels + e.memcpys + e.scopes >
                        it->second.kernels + it->second.memcpys + it->second.scopes)
        it->second = e;
    } else if constexpr (std::is_same_v<T, ScopeBegin>) {
      open_scopes_[e.id] = e;
    } else if constexpr (std::is_same_v<T, ScopeEnd>) {
      auto it = open_scopes_.find(e.id);
      if (it == open_scopes_.end()) {
        ++unmatched_ends;  // its begin was in a lost line or a deleted segment
        return;
      }
      writeScope(it->second, e.ts_ns - it->second.ts_ns);
      open_scopes_.erase(it);
    } else {
      add(e);
    }
  }

  template <typename T>
  void add(const T& e) {
    parquet::FileWriter& f = *tables_[kRecordIndex<T>].file;
    pc::RowWriter(f).record(e);
    f.endRow();
    if (!f.ok() && error.empty()) error = f.error();
    if (++rows_ % kBudgetCheckRows == 0) keepWithinBudget();
  }
  void keepWithinBudget() {
    size_t total = 0, most = 0;
    parquet::FileWriter* fullest = nullptr;
    for (Table& t : tables_) {
      if (!t.file) continue;
      const size_t bytes = t.file->bufferedBytes();
      total += bytes;
      if (bytes > most) most = bytes, fullest = t.file.get();
    }
    if (total > kBufferBudget && fullest) fullest->flush();
  }
  void writeScope(const ScopeBegin& b, std::optional<int64_t> dur_ns) {
    parquet::FileWriter& f = *tables_[kRecordIndex<ScopeBegin>].file;
    pc::RowWriter w(f);
    w.record(b);
    w.put(dur_ns);
    f.endRow();
    if (!f.ok() && error.empty()) error = f.error();
    if (++rows_ % kBudgetCheckRows == 0) keepWithinBudget();
  }

  std::vector<Table> tables_;  // by kRecordIndex; none for scope_end
  uint64_t rows_ = 0;          // rows added to any table
  std::set<std::string> started_;
  std::map<std::string, SessionEnd> ends_;
  std::unordered_map<uint64_t, ScopeBegin> open_scopes_;
};

}  // namespace

uint64_t ParquetExportResult::rowsOf(const std::string& table) const {
  for (const auto& [name, rows] : tables)
    if (name == table) return rows;
  return 0;
}

std::vector<ParquetTableSchema> parquetSchema() {
  std::vector<ParquetTableSchema> out;
  schema::forEachRecordType([&]<typename T>() {
    if constexpr (std::is_same_v<T, ScopeEnd>) return;  // in scopes, with its begin
    ParquetTableSchema s;
    s.record = std::string(schema::Schema<T>::type);
    s.table = tableName(s.record);
    for (pc::Column& c : columnsOf<T>()) {
      s.columns.push_back(std::move(c.spec));
      s.units.push_back(std::move(c.unit));
    }
    out.push_back(std::move(s));
  });
  return out;
}

ParquetExportResult exportParquet(const std::vector<std::string>& prefixes,
                                  const std::string& session, const std::string& dir,
                                  const parquet::WriterOptions& options) {
  ParquetExportResult r;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    r.error = dir + ": " + ec.message();
    return r;
  }
  ParquetSink sink(dir, options);
  if (!sink.error.empty()) {
    r.error = sink.error;
    return r;
  }
  for (const std::string& prefix : prefixes) {
    log::ReadOptions read_options;
    read_options.session = session;
    const log::ReadResult read = log::readPrefix(prefix, read_options, sink);
    for (const log::ReadWarning& w : read.warnings) r.warnings.push_back(log::formatWarning(w));
    if (!read.any_readable) {
      r.error = "nothing readable under '" + prefix + "'";
      return r;
    }
    sink.endPrefix();
    ++r.sessions;
    if (!sink.error.empty()) break;
  }
  sink.finish(r);
  if (sink.unmatched_ends)
    r.warnings.push_back(": " + std::to_string(sink.unmatched_ends) +
                         " scope_end records without their scope_begin: not in scopes.parquet");
  if (!sink.error.empty()) {
    r.error = sink.error;
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace gpufl::exporter
