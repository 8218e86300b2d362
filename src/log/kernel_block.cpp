#include "log/kernel_block.hpp"

#include <zstd.h>

#include "log/json_escape.hpp"
#include "log/kernel_block_layout.hpp"
#include "log/ndjson_format.hpp"

namespace gpufl::log {
namespace {

using namespace block;

void putColumn(std::string& out, const std::vector<uint64_t>& values) {
  uint64_t all = 0;
  for (uint64_t v : values) all |= v;
  int width = 0;
  while (width < 8 && (all >> (8 * width)) != 0) ++width;
  out.push_back(static_cast<char>(width));
  for (int plane = 0; plane < width; ++plane)
    for (uint64_t v : values) out.push_back(static_cast<char>((v >> (8 * plane)) & 0xff));
}

void appendBase64(std::string& out, std::string_view in) {
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << 16 |
                       static_cast<uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (const size_t left = in.size() - i; left > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << 16;
    if (left == 2) v |= static_cast<uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(left == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
}

}  // namespace

KernelBlockBuilder::KernelBlockBuilder(std::string sid) : sid_(std::move(sid)) {
  head_ = "{\"type\":\"";
  head_ += kKernelBlockType;
  head_ += "\",\"sid\":";
  appendJsonString(head_, sid_);
  head_ += ",\"n\":";
}

KernelBlockBuilder::KernelBlockBuilder(KernelBlockBuilder&& o) noexcept
    : sid_(std::move(o.sid_)),
      head_(std::move(o.head_)),
      rows_(std::move(o.rows_)),
      raw_(std::move(o.raw_)),
      packed_(std::move(o.packed_)),
      cctx_(o.cctx_) {
  o.cctx_ = nullptr;
}

KernelBlockBuilder& KernelBlockBuilder::operator=(KernelBlockBuilder&& o) noexcept {
  if (this != &o) {
    ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_));
    sid_ = std::move(o.sid_);
    head_ = std::move(o.head_);
    rows_ = std::move(o.rows_);
    raw_ = std::move(o.raw_);
    packed_ = std::move(o.packed_);
    cctx_ = o.cctx_;
    o.cctx_ = nullptr;
  }
  return *this;
}

KernelBlockBuilder::~KernelBlockBuilder() {
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_));
}

void KernelBlockBuilder::add(const KernelEvent& e) {
  rows_.push_back(Row{e.start_ns, e.end_ns, e.correlation_id, e.def_id, e.stream, e.scope_path,
                      e.stack_id, e.graph_id, e.instrumented});
}

void KernelBlockBuilder::appendLine(std::string& out, int zstd_level) {
  if (rows_.empty()) return;
  const size_t n = rows_.size();
  raw_.clear();
  raw_.push_back(static_cast<char>(kVersion));
  putLe(raw_, n, 4);
  putLe(raw_, static_cast<uint64_t>(rows_[0].start_ns), 8);
  putLe(raw_, rows_[0].corr, 8);
  std::vector<uint64_t> a(n), b(n);
  uint64_t prev_start = static_cast<uint64_t>(rows_[0].start_ns), prev_corr = rows_[0].corr;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t start = static_cast<uint64_t>(rows_[i].start_ns);
    splitTicks(start - prev_start, a[i], b[i]);
    a[i] = zigzag(a[i]);
    b[i] = zigzag(b[i]);
    prev_start = start;
  }
  putColumn(raw_, a);
  putColumn(raw_, b);
  for (size_t i = 0; i < n; ++i) {
    splitTicks(static_cast<uint64_t>(rows_[i].end_ns) - static_cast<uint64_t>(rows_[i].start_ns),
               a[i], b[i]);
    a[i] = zigzag(a[i]);
    b[i] = zigzag(b[i]);
  }
  putColumn(raw_, a);
  putColumn(raw_, b);
  for (size_t i = 0; i < n; ++i) {
    a[i] = zigzag(rows_[i].corr - prev_corr);
    prev_corr = rows_[i].corr;
  }
  putColumn(raw_, a);
  auto column = [&](auto field) {
    for (size_t i = 0; i < n; ++i) a[i] = rows_[i].*field;
    putColumn(raw_, a);
  };
  column(&Row::def_id);
  column(&Row::stream);
  column(&Row::scope_path);
  column(&Row::stack_id);
  column(&Row::graph_id);
  column(&Row::instrumented);

  if (cctx_ == nullptr) cctx_ = ZSTD_createCCtx();
  packed_.resize(ZSTD_compressBound(raw_.size()));
  const size_t packed =
      cctx_ == nullptr ? 0
                       : ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(cctx_), packed_.data(),
                                           packed_.size(), raw_.data(), raw_.size(), zstd_level);
  if (packed == 0 || ZSTD_isError(packed)) {
    // zstd could not get memory: the events go out as standalone kernel_event lines instead (any
    // reader takes both), never lost.
    KernelEvent e;
    e.sid = sid_;
    for (const Row& r : rows_) {
      e.start_ns = r.start_ns;
      e.end_ns = r.end_ns;
      e.correlation_id = r.corr;
      e.def_id = r.def_id;
      e.stream = r.stream;
      e.scope_path = r.scope_path;
      e.stack_id = r.stack_id;
      e.graph_id = r.graph_id;
      e.instrumented = r.instrumented;
      formatKernelEventAbsolute(out, e);
    }
    rows_.clear();
    return;
  }
  out += head_;
  out += std::to_string(n);
  out += ",\"enc\":\"";
  out += kKernelBlockEncoding;
  out += "\",\"data\":\"";
  appendBase64(out, std::string_view(packed_.data(), packed));
  out += "\"}\n";
  rows_.clear();
}

uint64_t recordsInLine(std::string_view line) {
  constexpr std::string_view kHead = "{\"type\":\"kernel_block\",\"sid\":\"";
  if (line.substr(0, kHead.size()) != kHead) return 1;
  const size_t key = line.find("\",\"n\":", kHead.size());
  if (key == std::string_view::npos) return 1;
  uint64_t n = 0;
  size_t i = key + 6, digits = 0;
  for (; i < line.size() && line[i] >= '0' && line[i] <= '9' && digits < 6; ++i, ++digits)
    n = n * 10 + static_cast<uint64_t>(line[i] - '0');
  return digits > 0 && n > 0 ? n : 1;
}

}  // namespace gpufl::log
