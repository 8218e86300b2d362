// The Parquet encodings and the Thrift compact bytes, checked against the specs' own examples and
// a decoder written here from parquet-format's Encodings.md (the whole-file check is done by
// pyarrow, polars and DuckDB in python/tests/test_export_parquet.py).
#include "export/parquet_encoding.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "export/parquet_thrift.hpp"

namespace gpufl::exporter::parquet {
namespace {

uint64_t readVarint(const std::string& s, size_t& at) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const auto byte = static_cast<uint8_t>(s.at(at++));
    v |= uint64_t{byte & 0x7Fu} << shift;
    if (!(byte & 0x80)) return v;
  }
}

// Decodes `n` values of the RLE / bit-packing hybrid.
std::vector<uint32_t> decodeHybrid(const std::string& s, size_t n, int bit_width) {
  std::vector<uint32_t> out;
  size_t at = 0;
  while (out.size() < n) {
    const uint64_t header = readVarint(s, at);
    if (header & 1) {
      const size_t values = (header >> 1) * 8;
      uint64_t acc = 0;
      int bits = 0;
      for (size_t i = 0; i < values; ++i) {
        while (bits < bit_width) {
          acc |= uint64_t{static_cast<uint8_t>(s.at(at++))} << bits;
          bits += 8;
        }
        const uint32_t v = static_cast<uint32_t>(acc & ((uint64_t{1} << bit_width) - 1));
        acc >>= bit_width;
        bits -= bit_width;
        if (out.size() < n) out.push_back(v);
      }
    } else {
      uint32_t v = 0;
      for (int b = 0; b < (bit_width + 7) / 8; ++b)
        v |= uint32_t{static_cast<uint8_t>(s.at(at++))} << (8 * b);
      for (uint64_t i = 0; i < (header >> 1) && out.size() < n; ++i) out.push_back(v);
    }
  }
  EXPECT_EQ(at, s.size()) << "bytes left after the values";
  return out;
}

TEST(ParquetEncoding, BitWidth) {
  EXPECT_EQ(bitWidth(0), 0);
  EXPECT_EQ(bitWidth(1), 1);
  EXPECT_EQ(bitWidth(7), 3);
  EXPECT_EQ(bitWidth(8), 4);
  EXPECT_EQ(bitWidth(0xFFFFFFFFu), 32);
}

TEST(ParquetEncoding, BitPackedExampleOfTheSpec) {
  // Encodings.md: 0..7 at bit width 3 pack into 10001000 11000110 11111010.
  const std::vector<uint32_t> v{0, 1, 2, 3, 4, 5, 6, 7};
  std::string out;
  appendHybrid(out, v.data(), v.size(), 3);
  EXPECT_EQ(out, std::string("\x03\x88\xC6\xFA", 4));
}

TEST(ParquetEncoding, LongRunsBecomeRleRuns) {
  const std::vector<uint32_t> v(1000, 5);
  std::string out;
  appendHybrid(out, v.data(), v.size(), 3);
  EXPECT_EQ(out, std::string("\xD0\x0F\x05", 3));  // varint(1000 << 1), then the value in a byte
}

TEST(ParquetEncoding, HybridRoundTripsMixedRunsAtEveryWidth) {
  std::mt19937 rng(36);
  for (int width : {1, 2, 5, 8, 13, 17, 32}) {
    const uint64_t top = width == 32 ? 0xFFFFFFFFu : (uint64_t{1} << width) - 1;
    std::vector<uint32_t> v;
    while (v.size() < 5000) {
      const auto value = static_cast<uint32_t>(rng() & top);
      const size_t run = rng() % 3 == 0 ? rng() % 40 : 1;  // runs across group boundaries
      v.insert(v.end(), run, value);
    }
    std::string out;
    appendHybrid(out, v.data(), v.size(), width);
    EXPECT_EQ(decodeHybrid(out, v.size(), width), v) << "width " << width;
  }
}

TEST(ParquetEncoding, DefinitionLevelsAsBytes) {
  const std::vector<uint8_t> levels{1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  std::string out;
  appendHybrid(out, levels.data(), levels.size(), 1);
  const std::vector<uint32_t> want(levels.begin(), levels.end());
  EXPECT_EQ(decodeHybrid(out, levels.size(), 1), want);
}

TEST(ParquetEncoding, PlainBoolsLeastSignificantBitFirst) {
  const std::vector<uint8_t> v{1, 0, 0, 0, 0, 0, 0, 1, 1};
  std::string out;
  appendPlainBools(out, v.data(), v.size());
  EXPECT_EQ(out, std::string("\x81\x01", 2));
}

TEST(ThriftCompact, FieldHeadersListsAndStructs) {
  thrift::CompactWriter w;
  w.i32(1, 1);          // delta 1, i32: 0x15, zigzag(1) = 2
  w.i64(3, -1);         // delta 2, i64: 0x26, zigzag(-1) = 1
  w.binary(20, "ab");   // delta 17 > 15: type byte 0x08, zigzag(20) = 40, length 2
  w.beginStruct(21);    // delta 1, struct: 0x1C
  w.boolean(1, true);   // 0x11
  w.boolean(2, false);  // 0x12
  w.endStruct();        // 0x00
  w.beginList(22, thrift::Type::I32, 2);  // 0x19, then 2 << 4 | 5
  w.i32Element(300);                      // zigzag 600 = 0xD8 0x04
  w.i32Element(-2);                       // zigzag 3
  const std::string got = w.finish();
  const std::string want(
      "\x15\x02\x26\x01\x08\x28\x02"
      "ab\x1C\x11\x12\x00\x19\x25\xD8\x04\x03\x00",
      19);
  EXPECT_EQ(got, want);
}

TEST(ThriftCompact, LongListsCarryTheirSizeAsAVarint) {
  thrift::CompactWriter w;
  w.beginList(1, thrift::Type::Struct, 20);
  for (int i = 0; i < 20; ++i) {
    w.beginElement();
    w.i32(1, i);
    w.endStruct();
  }
  const std::string got = w.finish();
  EXPECT_EQ(got.substr(0, 3), std::string("\x19\xFC\x14", 3));  // 0xF0 | struct, then 20
  EXPECT_EQ(got.size(), 3 + 20 * 3 + 1u);  // each element: header, value, stop; then the stop
}

}  // namespace
}  // namespace gpufl::exporter::parquet
