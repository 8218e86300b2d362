#include "export/parquet_file.hpp"

#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <functional>
#include <unordered_map>

#include "export/parquet_encoding.hpp"
#include "export/parquet_thrift.hpp"
#include "gpufl/version.hpp"

namespace gpufl::exporter::parquet {
namespace {

// parquet.thrift's enums, as numbers on the wire.
enum PhysicalType { kBoolean = 0, kInt32 = 1, kInt64 = 2, kDouble = 5, kByteArray = 6 };
enum Encoding { kPlain = 0, kRle = 3, kRleDictionary = 8 };
enum PageType { kDataPage = 0, kDictionaryPage = 2 };
enum Codec { kUncompressed = 0, kZstd = 6 };
enum ConvertedType { kUtf8 = 0, kUint8 = 11, kUint16 = 12, kUint32 = 13, kUint64 = 14 };

constexpr size_t kMaxDictionaryBytes = size_t{1} << 20;

int physicalType(ColumnType t) {
  switch (t) {
    case ColumnType::Bool:
      return kBoolean;
    case ColumnType::Int64:
    case ColumnType::UInt64:
      return kInt64;
    case ColumnType::Double:
      return kDouble;
    case ColumnType::String:
      return kByteArray;
    default:
      return kInt32;
  }
}

template <typename T>
void appendLE(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));  // the targets we build for are little-endian, as Parquet is
  out.append(bytes, sizeof(T));
}

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

}  // namespace

// The rows of one column since the last row group: definition levels (optional columns), and the
// present values in the column's storage (int32 for Bool and the 32-bit-or-narrower integers,
// int64, double, or strings as dictionary indices or PLAIN bytes).
class ColumnBuffer {
 public:
  explicit ColumnBuffer(ColumnSpec spec) : spec(std::move(spec)) {}

  void putInt(int64_t v) {
    present();
    if (physicalType(spec.type) == kInt64)
      i64.push_back(v);
    else
      i32.push_back(static_cast<int32_t>(v));
  }
  void putDouble(double v) {
    present();
    f64.push_back(v);
  }
  bool isDouble() const { return spec.type == ColumnType::Double; }
  void putString(std::string_view v) {
    present();
    if (plain_) {
      appendPlain(v);
      return;
    }
    if (last_ >= 0 && dict_[static_cast<size_t>(last_)] == v) {
      indices.push_back(static_cast<uint32_t>(last_));
      return;
    }
    auto it = index_.find(v);
    if (it == index_.end()) {
      if (dict_bytes_ + v.size() > kMaxDictionaryBytes) {
        toPlain();
        appendPlain(v);
        return;
      }
      dict_.emplace_back(v);
      dict_bytes_ += v.size() + 4;
      it = index_.emplace(dict_.back(), static_cast<uint32_t>(dict_.size() - 1)).first;
    }
    last_ = static_cast<int64_t>(it->second);
    indices.push_back(it->second);
  }
  void putNull() { defined.push_back(0); }

  // Bytes buffered (for the row group's size bound).
  size_t bytes() const {
    return defined.size() + i32.size() * 4 + i64.size() * 8 + f64.size() * 8 + indices.size() * 4 +
           plain_bytes.size() + dict_bytes_;
  }
  bool dictionary() const { return spec.type == ColumnType::String && !plain_; }
  // The chunk's distinct strings, in index order (stable addresses: index_ points into them).
  const std::deque<std::string>& dict() const { return dict_; }
  // Empties the buffers and gives their memory back: a table that fills slowly must not keep a
  // row group's worth of capacity for the rest of the export (parquet_export.cpp's budget counts
  // what is buffered, and this keeps what is held close to it).
  void clear() {
    std::vector<uint8_t>().swap(defined);
    std::vector<int32_t>().swap(i32);
    std::vector<int64_t>().swap(i64);
    std::vector<double>().swap(f64);
    std::vector<uint32_t>().swap(indices);
    std::string().swap(plain_bytes);
    std::vector<size_t>().swap(plain_offsets);
    dict_.clear();
    index_.clear();
    dict_bytes_ = 0;
    last_ = -1;
    plain_ = false;
  }

  ColumnSpec spec;
  std::vector<uint8_t> defined;  // optional columns: one per row, 1 = a value
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<double> f64;
  std::vector<uint32_t> indices;      // dictionary indices
  std::string plain_bytes;            // PLAIN strings (4-byte length + bytes each)
  std::vector<size_t> plain_offsets;  // where each PLAIN string starts in plain_bytes

 private:
  void present() {
    if (spec.optional) defined.push_back(1);
  }
  void appendPlain(std::string_view v) {
    plain_offsets.push_back(plain_bytes.size());
    appendLE(plain_bytes, static_cast<uint32_t>(v.size()));
    plain_bytes.append(v);
  }
  // The dictionary grew too large: this chunk's strings so far become PLAIN, and the rest follow.
  void toPlain() {
    for (uint32_t i : indices) appendPlain(dict_[i]);
    indices.clear();
    dict_.clear();
    index_.clear();
    dict_bytes_ = 0;
    last_ = -1;
    plain_ = true;
  }

  std::deque<std::string> dict_;
  std::unordered_map<std::string_view, uint32_t, Hash, std::equal_to<>> index_;
  size_t dict_bytes_ = 0;
  int64_t last_ = -1;
  bool plain_ = false;
};

struct FileWriter::ChunkMeta {
  uint64_t start = 0, data_page = 0, dictionary_page = 0, values = 0;
  uint64_t uncompressed = 0, compressed = 0;
  bool has_dictionary = false;
};

struct FileWriter::RowGroupMeta {
  std::vector<ChunkMeta> chunks;
  uint64_t rows = 0;
};

FileWriter::FileWriter(const std::string& path, std::vector<ColumnSpec> columns,
                       WriterOptions options)
    : path_(path), options_(options) {
  for (ColumnSpec& c : columns) columns_.push_back(std::make_unique<ColumnBuffer>(std::move(c)));
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    fail(std::string("cannot create: ") + std::strerror(errno));
    return;
  }
  std::setvbuf(file_, nullptr, _IOFBF, size_t{1} << 20);
  write("PAR1");
}

FileWriter::~FileWriter() {
  if (file_) std::fclose(file_);
  ZSTD_freeCCtx(zstd_);
}

void FileWriter::fail(const std::string& what) {
  if (error_.empty()) error_ = path_ + ": " + what;
}

void FileWriter::write(const std::string& bytes) {
  if (!file_ || !error_.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    fail(std::string("write failed: ") + std::strerror(errno));
  offset_ += bytes.size();
}

void FileWriter::putInt(int64_t v) {
  if (next_ >= columns_.size()) return fail("a row with more values than columns");
  ColumnBuffer& c = *columns_[next_++];
  if (c.isDouble())
    c.putDouble(static_cast<double>(v));
  else if (c.spec.type == ColumnType::String)
    fail("column " + c.spec.name + ": a number for a string column");
  else
    c.putInt(v);
}

void FileWriter::putDouble(double v) {
  if (next_ >= columns_.size()) return fail("a row with more values than columns");
  ColumnBuffer& c = *columns_[next_++];
  if (!c.isDouble())
    return fail("column " + c.spec.name + ": a double for a " +
                (c.spec.type == ColumnType::String ? "string" : "integer") + " column");
  c.putDouble(v);
}

void FileWriter::putString(std::string_view v) {
  if (next_ >= columns_.size()) return fail("a row with more values than columns");
  ColumnBuffer& c = *columns_[next_++];
  if (c.spec.type != ColumnType::String)
    return fail("column " + c.spec.name + ": a string for a number column");
  c.putString(v);
}

void FileWriter::putNull() {
  if (next_ >= columns_.size()) return fail("a row with more values than columns");
  ColumnBuffer& c = *columns_[next_++];
  if (!c.spec.optional) return fail("column " + c.spec.name + ": a null in a required column");
  c.putNull();
}

void FileWriter::endRow() {
  if (next_ != columns_.size()) fail("a row with fewer values than columns");
  next_ = 0;
  ++group_rows_;
  ++rows_;
  if (group_rows_ >= options_.row_group_rows) {
    flushRowGroup();
  } else if (group_rows_ % 4096 == 0 && bufferedBytes() >= options_.row_group_bytes) {
    flushRowGroup();
  }
}

size_t FileWriter::bufferedBytes() const {
  size_t bytes = 0;
  for (const auto& c : columns_) bytes += c->bytes();
  return bytes;
}

void FileWriter::writePage(ColumnBuffer& c, int page_type, const std::string& body, size_t values,
                           int encoding, ChunkMeta& meta) {
  const std::string* payload = &body;
  if (options_.zstd_level > 0) {
    compressed_.resize(ZSTD_compressBound(body.size()));
    const size_t n = ZSTD_compress(compressed_.data(), compressed_.size(), body.data(), body.size(),
                                   options_.zstd_level);
    if (ZSTD_isError(n)) return fail("column " + c.spec.name + ": zstd: " + ZSTD_getErrorName(n));
    compressed_.resize(n);
    payload = &compressed_;
  }
  thrift::CompactWriter h;
  h.i32(1, page_type);
  h.i32(2, static_cast<int32_t>(body.size()));
  h.i32(3, static_cast<int32_t>(payload->size()));
  if (page_type == kDataPage) {
    h.beginStruct(5);
    h.i32(1, static_cast<int32_t>(values));
    h.i32(2, encoding);
    h.i32(3, kRle);
    h.i32(4, kRle);
    h.endStruct();
  } else {
    h.beginStruct(7);
    h.i32(1, static_cast<int32_t>(values));
    h.i32(2, kPlain);
    h.endStruct();
  }
  const std::string header = h.finish();
  if (page_type == kDictionaryPage)
    meta.dictionary_page = offset_;
  else if (meta.data_page == 0)
    meta.data_page = offset_;
  write(header);
  write(*payload);
  meta.uncompressed += header.size() + body.size();
  meta.compressed += header.size() + payload->size();
}

void FileWriter::writeColumnChunk(ColumnBuffer& c, size_t rows, std::vector<ChunkMeta>& out) {
  ChunkMeta meta;
  meta.start = offset_;
  meta.values = rows;
  const bool dictionary = c.dictionary() && !c.dict().empty();
  meta.has_dictionary = dictionary;
  std::string body;
  int index_width = 1;
  if (dictionary) {
    for (const std::string& s : c.dict()) {
      appendLE(body, static_cast<uint32_t>(s.size()));
      body += s;
    }
    writePage(c, kDictionaryPage, body, c.dict().size(), kPlain, meta);
    index_width = std::max(1, bitWidth(c.dict().size() - 1));
  }
  std::vector<uint8_t> bools;
  size_t value = 0;  // the first present value of the page
  for (size_t row = 0; row < rows; row += options_.page_rows) {
    const size_t page_rows = std::min(options_.page_rows, rows - row);
    body.clear();
    size_t present = page_rows;
    if (c.spec.optional) {
      std::string levels;
      appendHybrid(levels, c.defined.data() + row, page_rows, 1);
      appendLE(body, static_cast<uint32_t>(levels.size()));
      body += levels;
      present = 0;
      for (size_t i = row; i < row + page_rows; ++i) present += c.defined[i];
    }
    const size_t end = value + present;
    switch (c.spec.type) {
      case ColumnType::Bool:
        bools.assign(c.i32.begin() + value, c.i32.begin() + end);
        appendPlainBools(body, bools.data(), bools.size());
        break;
      case ColumnType::Int64:
      case ColumnType::UInt64:
        body.append(reinterpret_cast<const char*>(c.i64.data() + value), present * 8);
        break;
      case ColumnType::Double:
        body.append(reinterpret_cast<const char*>(c.f64.data() + value), present * 8);
        break;
      case ColumnType::String:
        if (dictionary) {
          body.push_back(static_cast<char>(index_width));
          appendHybrid(body, c.indices.data() + value, present, index_width);
        } else if (present) {
          const size_t from = c.plain_offsets[value];
          const size_t to =
              end < c.plain_offsets.size() ? c.plain_offsets[end] : c.plain_bytes.size();
          body.append(c.plain_bytes, from, to - from);
        }
        break;
      default:
        body.append(reinterpret_cast<const char*>(c.i32.data() + value), present * 4);
        break;
    }
    writePage(c, kDataPage, body, page_rows, dictionary ? kRleDictionary : kPlain, meta);
    value = end;
  }
  out.push_back(meta);
}

void FileWriter::flushRowGroup() {
  if (group_rows_ == 0) return;
  RowGroupMeta group;
  group.rows = group_rows_;
  for (auto& c : columns_) {
    writeColumnChunk(*c, group_rows_, group.chunks);
    c->clear();
  }
  groups_.push_back(std::move(group));
  group_rows_ = 0;
}

std::string FileWriter::footer(
    const std::vector<std::pair<std::string, std::string>>& metadata) const {
  thrift::CompactWriter w;
  w.i32(1, 1);  // version
  w.beginList(2, thrift::Type::Struct, columns_.size() + 1);
  w.beginElement();
  w.binary(4, "schema");
  w.i32(5, static_cast<int32_t>(columns_.size()));
  w.endStruct();
  for (const auto& c : columns_) {
    const ColumnType t = c->spec.type;
    w.beginElement();
    w.i32(1, physicalType(t));
    w.i32(3, c->spec.optional ? 1 : 0);  // OPTIONAL : REQUIRED
    w.binary(4, c->spec.name);
    int bits = 0;
    if (t == ColumnType::UInt8) bits = 8;
    if (t == ColumnType::UInt16) bits = 16;
    if (t == ColumnType::UInt32) bits = 32;
    if (t == ColumnType::UInt64) bits = 64;
    if (t == ColumnType::String) {
      w.i32(6, kUtf8);
      w.beginStruct(10);  // LogicalType: STRING
      w.beginStruct(1);
      w.endStruct();
      w.endStruct();
    } else if (bits) {
      w.i32(6, bits == 8 ? kUint8 : bits == 16 ? kUint16 : bits == 32 ? kUint32 : kUint64);
      w.beginStruct(10);  // LogicalType: INTEGER(bits, unsigned)
      w.beginStruct(10);
      w.byte(1, static_cast<int8_t>(bits));
      w.boolean(2, false);
      w.endStruct();
      w.endStruct();
    }
    w.endStruct();
  }
  w.i64(3, static_cast<int64_t>(rows_));
  w.beginList(4, thrift::Type::Struct, groups_.size());
  for (const RowGroupMeta& g : groups_) {
    w.beginElement();
    w.beginList(1, thrift::Type::Struct, g.chunks.size());
    uint64_t uncompressed = 0, compressed = 0;
    for (size_t i = 0; i < g.chunks.size(); ++i) {
      const ChunkMeta& m = g.chunks[i];
      const ColumnSpec& spec = columns_[i]->spec;
      w.beginElement();
      w.i64(2, static_cast<int64_t>(m.start));
      w.beginStruct(3);
      w.i32(1, physicalType(spec.type));
      const bool rle_levels = spec.optional;
      w.beginList(2, thrift::Type::I32, (m.has_dictionary ? 2 : 1) + (rle_levels ? 1 : 0));
      w.i32Element(kPlain);
      if (m.has_dictionary) w.i32Element(kRleDictionary);
      if (rle_levels) w.i32Element(kRle);
      w.beginList(3, thrift::Type::Binary, 1);
      w.binaryElement(spec.name);
      w.i32(4, options_.zstd_level > 0 ? kZstd : kUncompressed);
      w.i64(5, static_cast<int64_t>(m.values));
      w.i64(6, static_cast<int64_t>(m.uncompressed));
      w.i64(7, static_cast<int64_t>(m.compressed));
      w.i64(9, static_cast<int64_t>(m.data_page));
      if (m.has_dictionary) w.i64(11, static_cast<int64_t>(m.dictionary_page));
      w.endStruct();
      w.endStruct();
      uncompressed += m.uncompressed;
      compressed += m.compressed;
    }
    w.i64(2, static_cast<int64_t>(uncompressed));
    w.i64(3, static_cast<int64_t>(g.rows));
    w.i64(5, static_cast<int64_t>(g.chunks.empty() ? 0 : g.chunks.front().start));
    w.i64(6, static_cast<int64_t>(compressed));
    w.endStruct();
  }
  w.beginList(5, thrift::Type::Struct, metadata.size());
  for (const auto& [key, value] : metadata) {
    w.beginElement();
    w.binary(1, key);
    w.binary(2, value);
    w.endStruct();
  }
  w.binary(6, std::string("gpufl version ") + GPUFL_VERSION_STRING);
  return w.finish();
}

bool FileWriter::close(const std::vector<std::pair<std::string, std::string>>& metadata) {
  if (next_ != 0) fail("close() inside a row");
  flushRowGroup();
  const std::string meta = footer(metadata);
  write(meta);
  std::string tail;
  appendLE(tail, static_cast<uint32_t>(meta.size()));
  tail += "PAR1";
  write(tail);
  if (file_) {
    if (std::fclose(file_) != 0) fail(std::string("close failed: ") + std::strerror(errno));
    file_ = nullptr;
  }
  return ok();
}

}  // namespace gpufl::exporter::parquet
