// User scopes on the hot path: a thread-local stack of (instance id, path id), and the records they
// produce.
//
// scopeBegin interns the name and tag (thread-local caches, intern.hpp), derives the path id from
// the enclosing scope's path, and appends a ScopeBegin record to this thread's buffer; a scope
// begun again at the same depth under the same parent with the same name and tag reuses the ids of
// the previous one after comparing the texts (ThreadState's memo: a loop body skips the lookups).
// scopeEnd pops and appends ScopeEnd. No lock, allocation or I/O after a thread's first scope and a
// name's first use. Nothing is recorded while no session records (generation 0): scopeBegin then
// returns 0, and scopeEnd(0) does nothing.
//
// Instance ids are unique within the process (so within a session): thread index in the high 24
// bits, a per-thread counter in the low 40. Ending a scope that is not innermost removes just that
// scope (bindings may end out of order); ending an unknown id, or on another thread than its begin,
// does nothing.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/thread_state.hpp"

namespace gpufl::core {

uint64_t scopeBegin(std::string_view name, std::string_view tag = {}) noexcept;
void scopeEnd(uint64_t id) noexcept;

// Path id of this thread's innermost open scope (0 = none). Cheap (one TLS read): meant for CUDA
// launch callbacks running on the launching thread.
inline uint32_t currentScopePath() noexcept {
  return t_thread.current_path;
}

// Observers of scope begin/end on the application thread (the range profiler opens a range per
// scope). At most one; set while no scope is open on another thread. Called after the begin record
// and before the end record, so an observer's cost falls inside the scope's wall time. Costs one
// relaxed load when unset.
struct ScopeObserver {
  void (*begin)(void* self, uint32_t path, std::string_view name) = nullptr;
  void (*end)(void* self, uint32_t path) = nullptr;
  void* self = nullptr;
};
void setScopeObserver(const ScopeObserver* observer) noexcept;  // nullptr removes it

// Number of open scopes on this thread.
uint32_t currentScopeDepth() noexcept;

// The session gate. A session sets a new non-zero generation when it starts recording and 0 when it
// stops.
void setRecordingGeneration(uint32_t generation) noexcept;
uint32_t recordingGeneration() noexcept;

// pthread_atfork handlers for the core's locks (intern tables, buffer registry). The child stops
// recording: the session it inherited has no writer thread there. Registered by whoever owns the
// process-wide session (api.cpp), so that its own lock can be taken first.
void forkPrepare() noexcept;
void forkParent() noexcept;
void forkChild() noexcept;

}  // namespace gpufl::core
