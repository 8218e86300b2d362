#include "core/thread_buffer.hpp"

#include <algorithm>
#include <new>

namespace gpufl::core {

const char* sourceName(Source s) noexcept {
  switch (s) {
    case Source::Scope:
      return "scope";
    case Source::Launch:
      return "launch";
    case Source::Other:
      return "other";
  }
  return "other";
}

uint64_t DropCounts::total() const noexcept {
  uint64_t t = 0;
  for (uint64_t v : by_source) t += v;
  return t;
}

ThreadBuffer::ThreadBuffer(ThreadInfo info, uint32_t capacity) : info_(info) {
  uint64_t cap = 2;
  while (cap < capacity) cap <<= 1;
  capacity_ = cap;
  mask_ = cap - 1;
  // Uninitialised (Record is trivially copyable, every slot is written before it is published):
  // creating a buffer does not touch its 512 KiB on the thread's first scope; pages are faulted in
  // as the ring first fills. Throws bad_alloc; the registry catches it.
  slots_ = static_cast<Record*>(
      ::operator new[](cap * sizeof(Record), std::align_val_t{alignof(Record)}));
}

ThreadBuffer::~ThreadBuffer() {
  ::operator delete[](slots_, std::align_val_t{alignof(Record)});
}

DropCounts ThreadBuffer::takeDrops() noexcept {
  DropCounts d;
  for (int s = 0; s < kSourceCount; ++s) {
    const uint64_t now = dropped_[s].load(std::memory_order_relaxed);
    d.by_source[s] = now - reported_[s];
    reported_[s] = now;
  }
  return d;
}

ThreadBufferRegistry::~ThreadBufferRegistry() {
  for (ThreadBuffer* b : buffers_) delete b;
}

ThreadBufferRegistry& ThreadBufferRegistry::global() {
  static ThreadBufferRegistry* registry = new ThreadBufferRegistry();  // immortal, see header
  return *registry;
}

ThreadBuffer* ThreadBufferRegistry::create(int64_t tid) noexcept {
  try {
    std::lock_guard lock(mu_);
    if (buffers_.size() == buffers_.capacity()) buffers_.reserve(buffers_.size() * 2 + 16);
    // push_back below cannot throw now, so `new` cannot leak.
    auto* b = new ThreadBuffer(ThreadInfo{tid, next_index_}, capacity_);
    ++next_index_;
    buffers_.push_back(b);
    return b;
  } catch (...) {
    return nullptr;
  }
}

void ThreadBufferRegistry::retire(ThreadBuffer* buffer) noexcept {
  if (buffer == nullptr) return;
  std::lock_guard lock(mu_);
  if (attached_) {
    buffer->retired_ = true;  // the consumer drains it, then frees it
    return;
  }
  buffers_.erase(std::remove(buffers_.begin(), buffers_.end(), buffer), buffers_.end());
  delete buffer;  // nobody consumes: its records belong to no session
}

void ThreadBufferRegistry::attach() {
  std::lock_guard lock(mu_);
  attached_ = true;
  for (ThreadBuffer* b : buffers_) {
    b->discard();
    b->baselineDrops();
  }
}

void ThreadBufferRegistry::detach() {
  std::lock_guard lock(mu_);
  attached_ = false;
  auto keep = std::partition(buffers_.begin(), buffers_.end(),
                             [](ThreadBuffer* b) { return !b->retired_; });
  for (auto it = keep; it != buffers_.end(); ++it) delete *it;
  buffers_.erase(keep, buffers_.end());
  snapshot_.clear();
}

void ThreadBufferRegistry::takeSnapshot() {
  std::lock_guard lock(mu_);
  snapshot_.clear();
  for (ThreadBuffer* b : buffers_) snapshot_.emplace_back(b, b->retired_);
}

uint32_t ThreadBufferRegistry::freeRetiredFromSnapshot() {
  uint32_t freed = 0;
  std::lock_guard lock(mu_);
  for (auto& [buffer, retired] : snapshot_) {
    if (!retired) continue;
    // Retired before the snapshot: its owner is gone, so the drain above saw its last record.
    buffers_.erase(std::remove(buffers_.begin(), buffers_.end(), buffer), buffers_.end());
    delete buffer;
    ++freed;
  }
  snapshot_.clear();
  return freed;
}

size_t ThreadBufferRegistry::bufferCount() const {
  std::lock_guard lock(mu_);
  return buffers_.size();
}

uint32_t ThreadBufferRegistry::threadsSeen() const {
  std::lock_guard lock(mu_);
  return next_index_ - 1;
}

}  // namespace gpufl::core
