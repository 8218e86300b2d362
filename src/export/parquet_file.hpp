// A Parquet file writer for flat tables: the part of the format `gpufl export --parquet` needs, no
// more. Why our own: docs/export.md ("Parquet: why a writer of our own").
//
// What it writes (parquet-format 2.x, read by Arrow/pyarrow, polars and DuckDB in
// python/tests/test_export_parquet.py): one required or optional (nullable) column per field, no
// nesting; data pages v1 with RLE definition levels; numbers and booleans PLAIN, strings dictionary
// encoded (a PLAIN dictionary page, RLE_DICTIONARY indices) until a column chunk's dictionary
// passes 1 MiB, then PLAIN for the rest of that chunk; every page compressed with zstd. Unsigned
// integers carry the UINT_8..UINT_64 annotations, strings UTF8.
//
// Memory is bounded by the row group: rows are buffered column by column and written out as a row
// group every `row_group_rows` rows (or sooner when the buffered bytes pass `row_group_bytes`), so
// a table of any length costs one row group of buffers plus a few dozen bytes of footer per column
// chunk written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct ZSTD_CCtx_s;

namespace gpufl::exporter::parquet {

enum class ColumnType : uint8_t {
  Bool,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Double,
  String
};

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::Int64;
  bool optional = false;  // may hold nulls
};

struct WriterOptions {
  size_t row_group_rows = size_t{1} << 20;
  size_t row_group_bytes = size_t{64} << 20;
  size_t page_rows = size_t{1} << 16;
  int zstd_level = 1;  // 0: pages uncompressed
};

class ColumnBuffer;

class FileWriter {
 public:
  // Opens (creates or truncates) `path`; ok() says whether that worked.
  FileWriter(const std::string& path, std::vector<ColumnSpec> columns, WriterOptions options = {});
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // One row: a value or a null for every column, in column order, then endRow(). putInt takes
  // every integer and boolean column; putDouble a Double column; putString a String column.
  void putInt(int64_t v);
  void putDouble(double v);
  void putString(std::string_view v);
  void putNull();  // an optional column only
  void endRow();

  // Writes the rows still buffered and the footer, with `metadata` as the file's key/value pairs;
  // false (error() says why) when anything could not be written.
  bool close(const std::vector<std::pair<std::string, std::string>>& metadata);

  uint64_t rows() const { return rows_; }
  // Bytes of the rows buffered for the next row group; flush() writes them out as one now.
  size_t bufferedBytes() const;
  void flush() { flushRowGroup(); }

 private:
  struct ChunkMeta;
  void flushRowGroup();
  void write(const std::string& bytes);
  void writePage(ColumnBuffer& c, int page_type, const std::string& body, size_t values,
                 int encoding, ChunkMeta& meta);
  void writeColumnChunk(ColumnBuffer& c, size_t rows, std::vector<ChunkMeta>& out);
  std::string footer(const std::vector<std::pair<std::string, std::string>>& metadata) const;
  void fail(const std::string& what);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<std::unique_ptr<ColumnBuffer>> columns_;
  WriterOptions options_;
  std::string error_;
  size_t next_ = 0;        // the column the next put goes to
  size_t group_rows_ = 0;  // rows buffered
  uint64_t rows_ = 0;      // rows written or buffered
  uint64_t offset_ = 0;    // bytes written to the file
  struct RowGroupMeta;
  std::vector<RowGroupMeta> groups_;
  std::string compressed_;       // scratch for zstd
  ZSTD_CCtx_s* zstd_ = nullptr;  // one compression context for every page (no allocation per page)
};

}  // namespace gpufl::exporter::parquet
