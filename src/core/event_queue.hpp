// A small bounded queue of events from a collector's own thread (a sampler) to the writer thread
// (drain()). Mutex-based: meant for a few pushes per sampling period, not for the hot path. When
// full, push drops the event and counts it (report it in Collector::finish as end.dropped[...]).
#pragma once

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace gpufl::core {

template <typename T>
class EventQueue {
 public:
  explicit EventQueue(size_t capacity = 1024) : capacity_(capacity) {}

  // Any thread. False (and one drop counted) when full.
  bool push(T event) {
    std::lock_guard lock(mu_);
    if (items_.size() >= capacity_) {
      ++dropped_;
      return false;
    }
    items_.push_back(std::move(event));
    return true;
  }

  // [writer thread] Calls f(T&) for each queued event, oldest first, outside the lock; returns how
  // many.
  template <typename F>
  size_t drain(F&& f) {
    {
      std::lock_guard lock(mu_);
      std::swap(items_, draining_);
    }
    const size_t n = draining_.size();
    for (T& e : draining_) f(e);
    draining_.clear();  // keeps capacity: no allocation in steady state
    return n;
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }
  uint64_t dropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::vector<T> items_;     // guarded by mu_
  std::vector<T> draining_;  // writer thread only
  uint64_t dropped_ = 0;     // guarded by mu_
};

}  // namespace gpufl::core
