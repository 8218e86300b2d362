#include "export/parquet_thrift.hpp"

namespace gpufl::exporter::thrift {

void CompactWriter::varint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void CompactWriter::header(int16_t id, Type t) {
  const int delta = id - last_id_.back();
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | static_cast<int>(t)));
  } else {
    out_.push_back(static_cast<char>(t));
    varint(zigzag(id));
  }
  last_id_.back() = id;
}

void CompactWriter::i32(int16_t id, int32_t v) {
  header(id, Type::I32);
  varint(zigzag(v));
}

void CompactWriter::i64(int16_t id, int64_t v) {
  header(id, Type::I64);
  varint(zigzag(v));
}

void CompactWriter::byte(int16_t id, int8_t v) {
  header(id, Type::Byte);
  out_.push_back(static_cast<char>(v));
}

void CompactWriter::boolean(int16_t id, bool v) {
  header(id, v ? Type::True : Type::False);
}

void CompactWriter::binary(int16_t id, std::string_view v) {
  header(id, Type::Binary);
  varint(v.size());
  out_.append(v);
}

void CompactWriter::beginStruct(int16_t id) {
  header(id, Type::Struct);
  last_id_.push_back(0);
}

void CompactWriter::endStruct() {
  out_.push_back(0);
  last_id_.pop_back();
}

void CompactWriter::beginList(int16_t id, Type element, size_t size) {
  header(id, Type::List);
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | static_cast<int>(element)));
  } else {
    out_.push_back(static_cast<char>(0xF0 | static_cast<int>(element)));
    varint(size);
  }
}

void CompactWriter::i32Element(int32_t v) {
  varint(zigzag(v));
}

void CompactWriter::binaryElement(std::string_view v) {
  varint(v.size());
  out_.append(v);
}

void CompactWriter::beginElement() {
  last_id_.push_back(0);
}

std::string CompactWriter::finish() {
  out_.push_back(0);
  std::string done;
  done.swap(out_);
  last_id_.assign(1, 0);
  return done;
}

}  // namespace gpufl::exporter::thrift
