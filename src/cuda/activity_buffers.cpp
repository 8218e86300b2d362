#include "cuda/activity_buffers.hpp"

#include <sys/mman.h>

#include <algorithm>

namespace gpufl::cuda {
namespace {
constexpr size_t kAlign = 8;  // CUPTI requires 8-byte aligned activity buffers (mmap gives pages)
}

ActivityBufferPool::ActivityBufferPool(size_t buffer_bytes, size_t max_buffers, size_t keep_free)
    : buffer_bytes_((buffer_bytes + kAlign - 1) / kAlign * kAlign),
      max_buffers_(max_buffers),
      keep_free_(keep_free) {}

ActivityBufferPool::~ActivityBufferPool() {
  for (uint8_t* b : all_) unmap(b);
}

uint8_t* ActivityBufferPool::map() {
  void* p =
      mmap(nullptr, buffer_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

void ActivityBufferPool::unmap(uint8_t* b) {
  munmap(b, buffer_bytes_);
}

uint8_t* ActivityBufferPool::acquire() {
  std::lock_guard lock(mutex_);
  if (!free_.empty()) {
    uint8_t* b = free_.back();
    free_.pop_back();
    return b;
  }
  if (held_ >= max_buffers_) {
    ++refusals_;
    return nullptr;
  }
  uint8_t* b = map();
  if (b == nullptr) {
    ++refusals_;
    return nullptr;
  }
  all_.push_back(b);
  ++mapped_total_;
  peak_ = std::max(peak_, ++held_);
  return b;
}

size_t ActivityBufferPool::complete(uint8_t* data, size_t valid_bytes) {
  std::lock_guard lock(mutex_);
  if (data != nullptr) completed_.push_back({data, valid_bytes});
  return completed_.size();
}

std::vector<CompletedBuffer> ActivityBufferPool::takeCompleted() {
  std::lock_guard lock(mutex_);
  std::vector<CompletedBuffer> out(completed_.begin(), completed_.end());
  completed_.clear();
  return out;
}

void ActivityBufferPool::release(uint8_t* data) {
  if (data == nullptr) return;
  std::lock_guard lock(mutex_);
  if (free_.size() < keep_free_) {
    free_.push_back(data);
    return;
  }
  // munmap under the lock: CUPTI's acquire waits at most one unmap (tens of microseconds), and only
  // after a burst, when more than keep_free buffers come back idle.
  all_.erase(std::find(all_.begin(), all_.end(), data));
  --held_;
  unmap(data);
}

uint64_t ActivityBufferPool::allocated() const {
  std::lock_guard lock(mutex_);
  return mapped_total_;
}

uint64_t ActivityBufferPool::refusals() const {
  std::lock_guard lock(mutex_);
  return refusals_;
}

size_t ActivityBufferPool::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

size_t ActivityBufferPool::pending() const {
  std::lock_guard lock(mutex_);
  return completed_.size();
}

size_t ActivityBufferPool::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

}  // namespace gpufl::cuda
