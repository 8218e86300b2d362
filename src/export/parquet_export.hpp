// `gpufl export --parquet DIR PREFIX...`: the sessions of one or more prefixes as a directory of
// Parquet files, one table per record kind (DIR/kernels.parquet, DIR/kernel_defs.parquet,
// DIR/copies.parquet, DIR/scopes.parquet, DIR/gpu_samples.parquet, ...), for polars, DuckDB, pandas
// or Spark. Columns are generated from core/record_schema.hpp under the log's keys and in its units
// (each file's key/value metadata `gpufl.units` names them), so a field or record type added to the
// log format appears here without code. docs/export.md documents the tables and gives queries.
//
// One streaming pass through the log reader; every table is written in row groups
// (parquet_file.hpp), so memory stays flat however many kernels the session holds.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "export/parquet_file.hpp"

namespace gpufl::exporter {

struct ParquetExportResult {
  bool ok = false;
  std::string error;
  std::vector<std::string> warnings;  // from the reader, "file:line: message", and the exporter's
  uint64_t sessions = 0;
  std::vector<std::pair<std::string, uint64_t>> tables;  // table name, rows written
  uint64_t rowsOf(const std::string& table) const;
};

// Writes DIR/<table>.parquet for every table (created, or replaced; DIR is created when missing).
// `session`: a session id or a prefix of one, for every prefix (empty: the latest of each).
ParquetExportResult exportParquet(const std::vector<std::string>& prefixes,
                                  const std::string& session, const std::string& dir,
                                  const parquet::WriterOptions& options = {});

struct ParquetTableSchema {
  std::string table;   // file name without .parquet
  std::string record;  // the log's record type it holds
  std::vector<parquet::ColumnSpec> columns;
  std::vector<std::string> units;  // per column: the log's unit, "" for none
};

// Every table and its columns, in the order they are written (docs/export.md lists them).
std::vector<ParquetTableSchema> parquetSchema();

}  // namespace gpufl::exporter
