#include <zstd.h>

#include <array>

#include "log/kernel_block.hpp"
#include "log/kernel_block_layout.hpp"

namespace gpufl::log {
namespace {

using namespace block;

// Strict: only the standard alphabet, padding only at the end, a length that is a multiple of 4.
bool decodeBase64(std::string_view in, std::string& out) {
  static const std::array<int8_t, 256> kValue = [] {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i)
      t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
    return t;
  }();
  out.clear();
  if (in.size() % 4 != 0) return false;
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    const bool last = i + 4 == in.size();
    int pad = 0;
    uint32_t v = 0;
    for (size_t j = 0; j < 4; ++j) {
      const char ch = in[i + j];
      if (ch == '=' && last && j >= 2 && (j == 3 || in[i + 3] == '=')) {
        ++pad;
        v <<= 6;
        continue;
      }
      const int8_t d = kValue[static_cast<unsigned char>(ch)];
      if (d < 0 || pad > 0) return false;
      v = v << 6 | static_cast<uint32_t>(d);
    }
    out.push_back(static_cast<char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return true;
}

}  // namespace

std::string decodeKernelBlock(std::string_view data, uint64_t n, std::vector<KernelEvent>& out) {
  out.clear();
  if (n == 0 || n > KernelBlockBuilder::kMaxEvents)
    return "n " + std::to_string(n) + " is outside 1.." +
           std::to_string(KernelBlockBuilder::kMaxEvents);
  std::string packed;
  if (!decodeBase64(data, packed)) return "not base64";
  const unsigned long long size = ZSTD_getFrameContentSize(packed.data(), packed.size());
  const size_t most = kHeaderBytes + kColumns * (1 + 8 * n);
  if (size == ZSTD_CONTENTSIZE_ERROR) return "not a zstd frame";
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size > most)
    return "zstd frame of unknown or impossible size";
  std::string raw(size, '\0');
  const size_t got = ZSTD_decompress(raw.data(), raw.size(), packed.data(), packed.size());
  if (ZSTD_isError(got)) return std::string("zstd: ") + ZSTD_getErrorName(got);
  if (got != size) return "zstd frame shorter than it says";
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  const unsigned char* end = p + raw.size();
  if (raw.size() < kHeaderBytes) return "payload shorter than its header";
  if (p[0] != kVersion) return "payload version " + std::to_string(p[0]) + " is not 1";
  if (getLe(p + 1, 4) != n) return "payload holds " + std::to_string(getLe(p + 1, 4)) + " events";
  uint64_t start = getLe(p + 5, 8), corr = getLe(p + 13, 8);
  p += kHeaderBytes;
  std::array<std::vector<uint64_t>, kColumns> cols;
  for (int c = 0; c < kColumns; ++c) {
    if (p == end) return "payload ends before column " + std::to_string(c);
    const int width = *p++;
    if (width > 8) return "column " + std::to_string(c) + " width " + std::to_string(width);
    if (static_cast<size_t>(end - p) < width * n)
      return "payload ends inside column " + std::to_string(c);
    cols[c].assign(n, 0);
    for (int plane = 0; plane < width; ++plane)
      for (size_t i = 0; i < n; ++i) cols[c][i] |= static_cast<uint64_t>(*p++) << (8 * plane);
  }
  if (p != end) return "payload has " + std::to_string(end - p) + " bytes after its columns";
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    KernelEvent& e = out[i];
    start += unzigzag(cols[kStartTicks][i]) * kTick + unzigzag(cols[kStartRest][i]);
    corr += unzigzag(cols[kDcorr][i]);
    e.start_ns = static_cast<int64_t>(start);
    e.end_ns = static_cast<int64_t>(start + unzigzag(cols[kDurTicks][i]) * kTick +
                                    unzigzag(cols[kDurRest][i]));
    e.correlation_id = corr;
    e.def_id = static_cast<uint32_t>(cols[kDefId][i]);
    e.stream = static_cast<uint32_t>(cols[kStream][i]);
    e.scope_path = static_cast<uint32_t>(cols[kScope][i]);
    e.stack_id = static_cast<uint32_t>(cols[kStack][i]);
    e.graph_id = static_cast<uint32_t>(cols[kGraph][i]);
    e.instrumented = cols[kInstr][i] != 0;
    if (cols[kDefId][i] > UINT32_MAX || cols[kStream][i] > UINT32_MAX ||
        cols[kScope][i] > UINT32_MAX || cols[kStack][i] > UINT32_MAX ||
        cols[kGraph][i] > UINT32_MAX || cols[kInstr][i] > 1)
      return "event " + std::to_string(i) + " has a field out of range";
    if (e.def_id == 0) return "event " + std::to_string(i) + " has no kernel id (k 0)";
  }
  return {};
}

}  // namespace gpufl::log
