#include "cuda/carveout_requests.hpp"

namespace gpufl::cuda {

void CarveoutRequests::set(const void* function, int percent) {
  if (function == nullptr) return;
  std::lock_guard lock(mu_);
  const size_t used = used_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < used; ++i) {
    if (functions_[i].function.load(std::memory_order_relaxed) == function) {
      functions_[i].percent.store(percent, std::memory_order_release);
      return;
    }
  }
  if (used == kFunctions) return;  // more functions with requests: the records' own values serve
  functions_[used].percent.store(percent, std::memory_order_relaxed);
  functions_[used].function.store(function, std::memory_order_release);
  used_.store(used + 1, std::memory_order_release);
}

int CarveoutRequests::lookup(const void* function) const {
  const size_t used = used_.load(std::memory_order_acquire);
  for (size_t i = 0; i < used; ++i)
    if (functions_[i].function.load(std::memory_order_acquire) == function)
      return functions_[i].percent.load(std::memory_order_acquire);
  return -1;
}

int CarveoutRequests::forLaunch(uint32_t correlation_id) const {
  if (correlation_id == 0) return -1;
  const Slot& s = launches_[correlation_id % kLaunchSlots];
  if (s.corr.load(std::memory_order_acquire) != correlation_id) return -1;
  const int percent = s.percent.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return s.corr.load(std::memory_order_relaxed) == correlation_id ? percent : -1;
}

}  // namespace gpufl::cuda
