#include "cuda/capture_tracker.hpp"

namespace gpufl::cuda {

void CaptureTracker::began(const void* stream) {
  std::lock_guard lock(mutex_);
  streams_.insert(stream);
  open_.store(static_cast<int>(streams_.size()), std::memory_order_relaxed);
  seen_.fetch_add(1, std::memory_order_relaxed);
}

void CaptureTracker::ended(const void* stream) {
  std::lock_guard lock(mutex_);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  streams_.erase(it);
  open_.store(static_cast<int>(streams_.size()), std::memory_order_relaxed);
}

}  // namespace gpufl::cuda
