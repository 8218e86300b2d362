// The per-thread state behind the hot path: this thread's record buffer, scope stack and intern
// caches.
//
// Created on the thread's first record (one lock: the buffer registry) and reached afterwards
// through one trivially-constructed thread_local pointer. At thread exit the buffer is retired to
// the registry (the consumer drains it later) and the state is freed; a record attempted after that
// (e.g. from another thread_local's destructor) is silently not recorded.
#pragma once

#include <cstdint>

#include "core/intern.hpp"
#include "core/records.hpp"
#include "core/thread_buffer.hpp"

namespace gpufl::core {

inline constexpr uint32_t kMaxScopeDepth = 256;

struct ScopeFrame {
  uint64_t id = 0;
  uint32_t path = 0;
  uint32_t generation =
      0;  // recording generation at begin: an end after a session change is not recorded
};

// The ids of the scope begun last at one depth, kept after it ends: a scope begun again at that
// depth under the same parent with the same name and tag (a loop body, the common case) reuses them
// after comparing the texts, without hashing the name or looking up the path. Texts point to the
// intern table's stable copies; a caller's buffer may hold another name at the same address, so the
// comparison is by content.
struct ScopeMemo {
  const char* name = nullptr;
  const char* tag = nullptr;
  uint32_t name_len = 0;
  uint32_t tag_len = 0;
  uint32_t parent = 0;  // kInternFailed: not to be reused (its tag could not be interned)
  uint32_t path = 0;    // 0: empty
  uint32_t name_id = 0;
  uint32_t tag_id = 0;
};

struct ThreadState {
  ThreadBuffer* buffer = nullptr;  // registered; retired (not freed) by this thread at exit
  ThreadInfo info;
  uint64_t id_base = 0;  // thread_index << kScopeCounterBits
  uint64_t scope_counter = 0;
  uint32_t depth = 0;
  NameCache names;
  PathCache paths;
  // By depth: the open scope's frame and the memo a scope begun there checks, in one cache line
  // (scopeBegin touches both).
  struct alignas(64) Depth {
    ScopeFrame frame;
    ScopeMemo memo;
  };
  Depth at[kMaxScopeDepth];
};

inline constexpr int kScopeCounterBits =
    40;  // scope ids: thread index (24 bits) | per-thread counter (40 bits)

enum class ThreadStatus : uint32_t { Fresh = 0, Ready = 1, Gone = 2 };

struct ThreadTls {
  ThreadState* state;
  uint32_t current_path;  // path of the innermost open scope (0 = none); read by currentScopePath()
  ThreadStatus status;
};
// Trivial and constant-initialised: access is one TLS address computation, no init guard.
extern constinit thread_local ThreadTls t_thread;

// Slow path: creates and registers this thread's state; nullptr after thread exit or when out of
// memory.
ThreadState* createThreadState() noexcept;

inline ThreadState* threadState() noexcept {
  ThreadState* s = t_thread.state;
  return s != nullptr ? s : createThreadState();
}

// The OS thread id (gettid), cached once this thread has state.
int64_t currentTid() noexcept;

// For backends (e.g. the CUDA launch callback, on the launching thread): appends `r` to this
// thread's buffer. Returns false when dropped (full: counted under r.source) or when this thread
// cannot record.
bool pushRecord(const Record& r) noexcept;

}  // namespace gpufl::core
