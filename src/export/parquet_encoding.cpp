#include "export/parquet_encoding.hpp"

#include <vector>

namespace gpufl::exporter::parquet {
namespace {

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Bit-packs values (a multiple of 8 of them after padding) behind one header.
template <typename T>
void bitPacked(std::string& out, const T* values, size_t n, int bit_width) {
  const size_t groups = (n + 7) / 8;
  varint(out, (groups << 1) | 1);
  uint64_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < groups * 8; ++i) {
    const uint64_t v = i < n ? static_cast<uint64_t>(values[i]) : 0;
    acc |= v << bits;
    bits += bit_width;
    while (bits >= 8) {
      out.push_back(static_cast<char>(acc & 0xFF));
      acc >>= 8;
      bits -= 8;
    }
  }
}

void rleRun(std::string& out, uint64_t value, size_t count, int bit_width) {
  varint(out, count << 1);
  for (int b = 0; b < (bit_width + 7) / 8; ++b) out.push_back(static_cast<char>(value >> (8 * b)));
}

template <typename T>
void hybrid(std::string& out, const T* values, size_t n, int bit_width) {
  // Values waiting to be bit-packed: a run shorter than 8, or the head of a longer run taken to
  // bring the pending ones to a multiple of 8 (only a multiple of 8 may precede an RLE run).
  size_t pending_from = 0, i = 0;
  while (i < n) {
    size_t run = 1;
    while (i + run < n && values[i + run] == values[i]) ++run;
    const size_t pending = i - pending_from;
    if (run >= 8 && pending % 8 == 0) {
      if (pending) bitPacked(out, values + pending_from, pending, bit_width);
      rleRun(out, static_cast<uint64_t>(values[i]), run, bit_width);
      i += run;
      pending_from = i;
    } else if (run >= 8) {
      i += 8 - pending % 8;  // the rest of the run is looked at again
    } else {
      i += run;
    }
  }
  if (i > pending_from) bitPacked(out, values + pending_from, i - pending_from, bit_width);
}

}  // namespace

int bitWidth(uint64_t max_value) {
  int w = 0;
  while (max_value) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

void appendHybrid(std::string& out, const uint32_t* values, size_t n, int bit_width) {
  hybrid(out, values, n, bit_width);
}

void appendHybrid(std::string& out, const uint8_t* values, size_t n, int bit_width) {
  hybrid(out, values, n, bit_width);
}

void appendPlainBools(std::string& out, const uint8_t* values, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    unsigned byte = 0;
    for (size_t b = 0; b < 8 && i + b < n; ++b) byte |= (values[i + b] ? 1u : 0u) << b;
    out.push_back(static_cast<char>(byte));
  }
}

}  // namespace gpufl::exporter::parquet
