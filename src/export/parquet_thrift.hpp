// The Thrift compact protocol, write side only, as much of it as Parquet's metadata needs (page
// headers and the file footer: parquet.thrift's PageHeader and FileMetaData). Fields are written in
// increasing id order inside each struct; the caller names the field id and the type.
//
// Encoding (Thrift's compact protocol spec): a field header is one byte (id delta << 4 | type) when
// the id grows by 1..15 over the previous field of the struct, else the type byte and the id as a
// zigzag varint; integers are zigzag varints; binary is a varint length and the bytes; a list is
// one byte (size << 4 | element type) below 15 elements, else 0xF0 | type and a varint size; a
// struct ends with a 0 byte; a bool field carries its value in the header's type (1 true, 2 false).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpufl::exporter::thrift {

enum class Type : uint8_t {
  True = 1,
  False = 2,
  Byte = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Double = 7,
  Binary = 8,
  List = 9,
  Struct = 12,
};

class CompactWriter {
 public:
  // Fields of the current struct.
  void i32(int16_t id, int32_t v);
  void i64(int16_t id, int64_t v);
  void byte(int16_t id, int8_t v);
  void boolean(int16_t id, bool v);
  void binary(int16_t id, std::string_view v);
  // A struct field: its fields follow, then endStruct().
  void beginStruct(int16_t id);
  void endStruct();
  // A list field of `size` elements of `element` type; then write them with the element calls
  // below (structs: beginElement() ... endStruct()).
  void beginList(int16_t id, Type element, size_t size);
  void i32Element(int32_t v);
  void binaryElement(std::string_view v);
  void beginElement();

  // Ends the outermost struct (the message) and hands its bytes over.
  std::string finish();

 private:
  void header(int16_t id, Type t);
  void varint(uint64_t v);
  static uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ (v >> 63); }

  std::string out_;
  std::vector<int16_t> last_id_{0};  // the previous field id of each open struct
};

}  // namespace gpufl::exporter::thrift
