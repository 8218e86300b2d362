#include "cuda/nvtx_ranges.hpp"

#include "core/scope_stack.hpp"

namespace gpufl::cuda {
namespace {

struct OpenRange {
  uintptr_t domain;
  uint64_t scope;  // core scope id; 0 when not recorded (no session, or dropped)
};

struct NvtxStack {
  uint32_t generation;  // recording generation the entries belong to
  uint32_t depth;
  uint32_t overflow;  // pushes past kMaxNvtxDepth, not recorded
  OpenRange open[kMaxNvtxDepth];
};

// Trivial and zero-initialised: no TLS init guard on the hot path (2 KiB per thread that uses
// NVTX).
constinit thread_local NvtxStack t_nvtx{};

// Ends what an earlier session left open (see header) before this thread's first NVTX call in the
// current one.
NvtxStack& stackForThisSession() noexcept {
  NvtxStack& s = t_nvtx;
  const uint32_t now = core::recordingGeneration();
  if (s.generation != now) [[unlikely]] {
    // Innermost first; an earlier session's scopes end without a record (scopeEnd checks the
    // generation), only their frames leave the thread's scope stack.
    while (s.depth > 0) core::scopeEnd(s.open[--s.depth].scope);
    s.overflow = 0;
    s.generation = now;
  }
  return s;
}

}  // namespace

void nvtxRangePushed(uintptr_t domain, std::string_view name, std::string_view tag) noexcept {
  NvtxStack& s = stackForThisSession();
  if (s.depth >= kMaxNvtxDepth) {
    ++s.overflow;
    return;
  }
  s.open[s.depth++] = OpenRange{domain, core::scopeBegin(name, tag)};
}

void nvtxRangePopped(uintptr_t domain) noexcept {
  NvtxStack& s = stackForThisSession();
  if (s.overflow > 0) {
    --s.overflow;  // the innermost pushes are the ones not recorded
    return;
  }
  for (uint32_t i = s.depth; i > 0; --i) {
    if (s.open[i - 1].domain != domain) continue;
    core::scopeEnd(s.open[i - 1].scope);
    for (uint32_t j = i; j < s.depth; ++j) s.open[j - 1] = s.open[j];
    --s.depth;
    return;
  }
  // No push of this domain seen on this thread: not ours to end.
}

uint32_t nvtxOpenRanges() noexcept {
  return t_nvtx.depth + t_nvtx.overflow;
}

}  // namespace gpufl::cuda
