// NVTX push/pop ranges as gpufl scopes, on the thread that pushes them: a push begins a scope
// through core::scopeBegin (the same path as GFL_SCOPE, so kernels launched inside get the path
// ".../<range>", and the range profiler sees it like any scope), a pop ends it.
//
// Balance: each thread keeps its own stack of the scopes NVTX opened, with their domain. A pop
// ends the innermost range of its domain that this stack holds (NVTX nests each domain
// independently), and only such a scope: a pop whose push we never saw (pushed before gpufl
// subscribed, or an unbalanced pop) does nothing, so it can never end a user's GFL_SCOPE. A push
// while no session records still takes a slot (scope id 0), so its pop stays matched.
//
// Sessions: the stack remembers the recording generation it was filled in. The first NVTX call of
// a thread in a later session first ends what the earlier one left open (pops that happened while
// gpufl was not subscribed were never seen), so stale ranges do not stay as parents of new scopes.
//
// Hot path: no lock, no allocation (a fixed thread-local array); the name is interned by
// scopeBegin (thread-local cache after a name's first use). Past kMaxNvtxDepth open ranges a push
// is counted, not recorded, and the next pop (of any domain) consumes the count.
//
// [application thread]
#pragma once

#include <cstdint>
#include <string_view>

namespace gpufl::cuda {

inline constexpr uint32_t kMaxNvtxDepth = 128;

// A range `name` pushed in `domain` (0 = default domain) on this thread; `tag` is the scope's tag.
void nvtxRangePushed(uintptr_t domain, std::string_view name, std::string_view tag) noexcept;
// A range of `domain` popped on this thread.
void nvtxRangePopped(uintptr_t domain) noexcept;

// This thread's NVTX-opened ranges still open (for tests), overflow pushes included.
uint32_t nvtxOpenRanges() noexcept;

}  // namespace gpufl::cuda
