#include "cuda/activity_buffers.hpp"

#include <cstdlib>

namespace gpufl::cuda {
namespace {
constexpr size_t kAlign = 8;  // CUPTI requires 8-byte aligned activity buffers
}

ActivityBufferPool::ActivityBufferPool(size_t buffer_bytes, size_t max_buffers)
    : buffer_bytes_((buffer_bytes + kAlign - 1) / kAlign * kAlign), max_buffers_(max_buffers) {}

ActivityBufferPool::~ActivityBufferPool() {
  for (uint8_t* b : all_) std::free(b);
}

uint8_t* ActivityBufferPool::acquire() {
  std::lock_guard lock(mutex_);
  if (!free_.empty()) {
    uint8_t* b = free_.back();
    free_.pop_back();
    return b;
  }
  if (all_.size() >= max_buffers_) {
    ++refusals_;
    return nullptr;
  }
  auto* b = static_cast<uint8_t*>(std::aligned_alloc(kAlign, buffer_bytes_));
  if (b == nullptr) {
    ++refusals_;
    return nullptr;
  }
  all_.push_back(b);
  return b;
}

void ActivityBufferPool::complete(uint8_t* data, size_t valid_bytes) {
  if (data == nullptr) return;
  std::lock_guard lock(mutex_);
  completed_.push_back({data, valid_bytes});
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
  free_.push_back(data);
}

uint64_t ActivityBufferPool::allocated() const {
  std::lock_guard lock(mutex_);
  return all_.size();
}

uint64_t ActivityBufferPool::refusals() const {
  std::lock_guard lock(mutex_);
  return refusals_;
}

}  // namespace gpufl::cuda
