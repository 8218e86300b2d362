// `gpufl export --sqlite`: the sessions of one or more prefixes as an SQLite database, one table
// per record type with one column per field, both generated from core/record_schema.hpp (so a field
// added to the log format appears here without code), plus views that join what people ask for
// (kernels with their definition, copies, scopes with their end and full path) and indexes for
// those joins. docs/export.md documents the schema and gives example queries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpufl::exporter {

struct SqliteExportResult {
  bool ok = false;
  std::string error;
  std::vector<std::string> warnings;  // from the reader, "file:line: message"
  uint64_t records = 0;               // rows inserted over all tables
  uint64_t sessions = 0;
};

// Writes `db_path` (replaced if it exists). `session`: a session id or a prefix of one, for every
// prefix.
SqliteExportResult exportSqlite(const std::vector<std::string>& prefixes,
                                const std::string& session, const std::string& db_path);

// The CREATE statements of the tables, views and indexes (the schema docs/export.md describes).
std::vector<std::string> sqliteSchema();

}  // namespace gpufl::exporter
