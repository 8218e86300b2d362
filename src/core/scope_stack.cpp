#include "core/scope_stack.hpp"

#include <atomic>
#include <cstdint>

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

namespace {

// True when `m` holds the ids of this scope: same parent, name and tag (texts compared, not
// pointers).
inline bool remembered(const ScopeMemo& m, uint32_t parent, std::string_view name,
                       std::string_view tag) noexcept {
  return m.path != 0 && m.parent == parent && m.name_len == name.size() &&
         m.tag_len == tag.size() && sameBytes(m.name, name.data(), name.size()) &&
         sameBytes(m.tag, tag.data(), tag.size());
}

// scopeBegin's slow path, out of line so that the usual one keeps few registers: interns name, tag
// and path into the memo of this depth. False when the name or path table is full (the scope is
// dropped). A tag that cannot be interned is left out, and the ids are then not reused (a parent
// no path has).
[[gnu::noinline]] bool internScope(ThreadState& s, uint32_t parent, std::string_view name,
                                   std::string_view tag) noexcept {
  const char *name_text, *tag_text = nullptr;
  const uint32_t name_id = s.names.intern(name, &name_text);
  const uint32_t path = name_id == kInternFailed ? kInternFailed : s.paths.intern(parent, name_id);
  if (path == kInternFailed) return false;
  const uint32_t tag_id = tag.empty() ? kEmptyName : s.names.intern(tag, &tag_text);
  const bool reusable =
      tag_id != kInternFailed && name.size() <= UINT32_MAX && tag.size() <= UINT32_MAX;
  s.at[s.depth].memo = ScopeMemo{name_text,
                                 tag_text,
                                 static_cast<uint32_t>(name.size()),
                                 static_cast<uint32_t>(tag.size()),
                                 reusable ? parent : kInternFailed,
                                 path,
                                 name_id,
                                 tag_id == kInternFailed ? kEmptyName : tag_id};
  return true;
}

}  // namespace

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
  const uint32_t depth = s->depth;
  const ScopeMemo* ids = &s->at[depth].memo;
  if (!remembered(*ids, t.current_path, name, tag) && !internScope(*s, t.current_path, name, tag))
      [[unlikely]] {
    s->buffer->countDrop(Source::Scope);
    return 0;
  }
  const uint32_t path = ids->path;

  const uint64_t id = s->id_base | (++s->scope_counter & kCounterMask);
  s->at[depth].frame = ScopeFrame{id, path, generation};
  s->depth = depth + 1;
  t.current_path = path;
  // Timestamp last: the scope's interval excludes the cost of interning.
  if (Record* r = s->buffer->reserve(Source::Scope)) {
    *r = Record{.kind = RecordKind::ScopeBegin,
                .source = Source::Scope,
                .path = path,
                .ts_ns = monotonicNs(),
                .id = id,
                .name = ids->name_id,
                .tag = ids->tag_id,
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
  if (s->at[depth - 1].frame.id == id) [[likely]] {
    frame = s->at[depth - 1].frame;
  } else {
    uint32_t i = depth - 1;
    while (i > 0 && s->at[i - 1].frame.id != id) --i;
    if (i == 0) return;  // not open on this thread
    frame = s->at[i - 1].frame;
    for (uint32_t j = i; j < depth; ++j) s->at[j - 1].frame = s->at[j].frame;
  }
  if (const ScopeObserver* o = scope_observer.load(std::memory_order_acquire))
    o->end(o->self, frame.path);
  s->depth = --depth;
  t.current_path = depth > 0 ? s->at[depth - 1].frame.path : kRootPath;
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
