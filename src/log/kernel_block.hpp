// Kernel events as column blocks: the compact alternative to one kernel_event line each
// (InitOptions::kernel_blocks, docs/log-format.md "kernel_block"). A block holds up to kMaxEvents
// kernel events of one session as columns (start and duration split into 32 ns ticks and a small
// remainder, because the GPU's timer counts in 32 ns steps; correlation ids as differences; every
// other field as is), each column stored as byte planes, the whole compressed with zstd and
// written base64 in one NDJSON line:
//
//   {"type":"kernel_block","sid":"...","n":16384,"enc":"planes1","data":"KLUv/..."}
//
// so the file stays NDJSON (rotation, .zst segments, `jq` on every other line) while a kernel
// costs about half the compressed bytes of a line. Lossless: the reader gets back every field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/events.hpp"

namespace gpufl::log {

inline constexpr std::string_view kKernelBlockType = "kernel_block";
inline constexpr std::string_view kKernelBlockEncoding = "planes1";

// Collects the kernel events of one session until appendLine() writes them. [writer thread]
class KernelBlockBuilder {
 public:
  static constexpr size_t kMaxEvents = 16384;

  explicit KernelBlockBuilder(std::string sid);
  KernelBlockBuilder(KernelBlockBuilder&&) noexcept;
  KernelBlockBuilder& operator=(KernelBlockBuilder&&) noexcept;
  ~KernelBlockBuilder();

  const std::string& sid() const { return sid_; }
  size_t size() const { return rows_.size(); }
  bool full() const { return rows_.size() >= kMaxEvents; }
  void add(const KernelEvent& e);
  // Appends the collected events as one kernel_block line ('\n' terminated) and empties the
  // builder. Nothing is appended when it is empty.
  void appendLine(std::string& out, int zstd_level);

 private:
  struct Row {
    int64_t start_ns, end_ns;
    uint64_t corr;
    uint32_t def_id, stream, scope_path, stack_id, graph_id;
    bool instrumented;
  };
  std::string sid_;
  std::string head_;  // `{"type":"kernel_block","sid":"<sid>","n":`, escaped once
  std::vector<Row> rows_;
  std::string raw_, packed_;  // reused between blocks
  void* cctx_ = nullptr;      // ZSTD_CCtx, reused
};

// Decodes a block's "data" (base64 as written) into `out` (replaced; sid left empty). Returns an
// empty string on success, otherwise what is wrong with the data. `n` is the line's "n": the
// data must hold exactly that many events.
std::string decodeKernelBlock(std::string_view data, uint64_t n, std::vector<KernelEvent>& out);

// The records one written line stands for: its "n" for a kernel_block line in the writer's layout,
// 1 for any other line (a writer that loses a line counts what was in it).
uint64_t recordsInLine(std::string_view line);

}  // namespace gpufl::log
