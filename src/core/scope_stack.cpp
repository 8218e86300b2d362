#include "core/scope_stack.hpp"

#include <atomic>

#include "core/clock.hpp"

namespace gpufl::core {
namespace {

std::atomic<uint32_t> recording_generation{0};

constexpr uint64_t kCounterMask = (uint64_t{1} << kScopeCounterBits) - 1;

}  // namespace

void setRecordingGeneration(uint32_t generation) noexcept {
  recording_generation.store(generation, std::memory_order_release);
}

uint32_t recordingGeneration() noexcept {
  return recording_generation.load(std::memory_order_acquire);
}

// Lock order: registry, then intern table (nothing takes them the other way round).
void forkPrepare() noexcept {
  ThreadBufferRegistry::global().lockForFork();
  InternTable::instance().lockForFork();
}

void forkParent() noexcept {
  InternTable::instance().unlockAfterFork();
  ThreadBufferRegistry::global().unlockAfterFork(false);
}

void forkChild() noexcept {
  recording_generation.store(0, std::memory_order_relaxed);
  InternTable::instance().unlockAfterFork();
  ThreadBufferRegistry::global().unlockAfterFork(true);
}

namespace {
std::atomic<const ScopeObserver*> scope_observer{nullptr};
}  // namespace

void setScopeObserver(const ScopeObserver* observer) noexcept {
  scope_observer.store(observer, std::memory_order_release);
}

uint64_t scopeBegin(std::string_view name, std::string_view tag) noexcept {
  const uint32_t generation = recording_generation.load(std::memory_order_relaxed);
  if (generation == 0) return 0;
  ThreadTls& t = t_thread;
  ThreadState* s = t.state;
  if (s == nullptr && (s = createThreadState()) == nullptr) return 0;
  if (s->depth >= kMaxScopeDepth) {
    s->buffer->countDrop(Source::Scope);
    return 0;
  }
  const uint32_t name_id = s->names.intern(name);
  const uint32_t path =
      name_id == kInternFailed ? kInternFailed : s->paths.intern(t.current_path, name_id);
  if (path == kInternFailed) {
    s->buffer->countDrop(Source::Scope);
    return 0;
  }
  uint32_t tag_id = tag.empty() ? kEmptyName : s->names.intern(tag);
  if (tag_id == kInternFailed) tag_id = kEmptyName;

  const uint64_t id = s->id_base | (++s->scope_counter & kCounterMask);
  const uint32_t depth = s->depth;
  s->frames[depth] = ScopeFrame{id, path, generation};
  s->depth = depth + 1;
  t.current_path = path;
  // Timestamp last: the scope's interval excludes the cost of interning.
  if (Record* r = s->buffer->reserve(Source::Scope)) {
    *r = Record{.kind = RecordKind::ScopeBegin,
                .source = Source::Scope,
                .path = path,
                .ts_ns = monotonicNs(),
                .id = id,
                .name = name_id,
                .tag = tag_id,
                .depth = depth};
    s->buffer->commit();
  }
  if (const ScopeObserver* o = scope_observer.load(std::memory_order_acquire))
    o->begin(o->self, path, name);
  return id;
}

void scopeEnd(uint64_t id) noexcept {
  if (id == 0) return;
  const int64_t ts = monotonicNs();  // first: the interval excludes the cost of recording
  ThreadTls& t = t_thread;
  ThreadState* s = t.state;
  if (s == nullptr || s->depth == 0) return;
  uint32_t depth = s->depth;
  ScopeFrame frame;
  if (s->frames[depth - 1].id == id) [[likely]] {
    frame = s->frames[depth - 1];
  } else {
    uint32_t i = depth - 1;
    while (i > 0 && s->frames[i - 1].id != id) --i;
    if (i == 0) return;  // not open on this thread
    frame = s->frames[i - 1];
    for (uint32_t j = i; j < depth; ++j) s->frames[j - 1] = s->frames[j];
  }
  if (const ScopeObserver* o = scope_observer.load(std::memory_order_acquire))
    o->end(o->self, frame.path);
  s->depth = --depth;
  t.current_path = depth > 0 ? s->frames[depth - 1].path : kRootPath;
  if (frame.generation != recording_generation.load(std::memory_order_relaxed)) return;
  if (Record* r = s->buffer->reserve(Source::Scope)) {
    *r = Record{.kind = RecordKind::ScopeEnd,
                .source = Source::Scope,
                .path = frame.path,
                .ts_ns = ts,
                .id = id,
                .depth = depth};
    s->buffer->commit();
  }
}

uint32_t currentScopeDepth() noexcept {
  ThreadState* s = t_thread.state;
  return s != nullptr ? s->depth : 0;
}

}  // namespace gpufl::core
