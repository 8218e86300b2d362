// Parquet's value encodings that the writer uses (parquet-format's Encodings.md): the
// RLE / bit-packing hybrid (definition levels and dictionary indices) and PLAIN booleans. PLAIN
// numbers are their little-endian bytes and need no helper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpufl::exporter::parquet {

// Bits needed for values 0..max_value (0 for max_value 0).
int bitWidth(uint64_t max_value);

// Appends values[0..n) in the RLE / bit-packing hybrid at `bit_width` (1..32), without the 4-byte
// length prefix (the caller adds it for definition levels): runs of 8 or more equal values become
// RLE runs, the rest bit-packed groups of 8, the last group padded with zeros (readers stop at
// the page's value count).
void appendHybrid(std::string& out, const uint32_t* values, size_t n, int bit_width);
// The same for bytes (definition levels: 0 null, 1 present).
void appendHybrid(std::string& out, const uint8_t* values, size_t n, int bit_width);

// PLAIN booleans: one bit per value, least significant bit first.
void appendPlainBools(std::string& out, const uint8_t* values, size_t n);

}  // namespace gpufl::exporter::parquet
