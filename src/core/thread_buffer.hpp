// Per-thread record buffers: the hot path's only shared state.
//
// Each recording thread owns one ThreadBuffer, a bounded single-producer/single-consumer ring of
// Records: the owner thread produces (no lock, no allocation, no system call), the session's writer
// thread consumes. When the ring is full the record is dropped and counted per Source. Buffers are
// created on a thread's first record and registered in the process-wide ThreadBufferRegistry (the
// only lock, taken once per thread); at thread exit a buffer is retired, and the consumer frees it
// after draining what it holds, so a thread's last records are not lost.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "core/records.hpp"

namespace gpufl::core {

inline constexpr uint32_t kThreadBufferRecords = 8192;  // 512 KiB per recording thread

struct DropCounts {
  uint64_t by_source[kSourceCount] = {};
  uint64_t total() const noexcept;
};

class ThreadBuffer {
 public:
  // `capacity` is rounded up to a power of two (at least 2).
  ThreadBuffer(ThreadInfo info, uint32_t capacity);
  ~ThreadBuffer();
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  // [owner thread] A slot to fill, then commit(); nullptr (and one drop counted for `source`) when
  // full.
  Record* reserve(Source source) noexcept {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - cached_tail_ >= capacity_) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head - cached_tail_ >= capacity_) {
        countDrop(source);
        return nullptr;
      }
    }
    return &slots_[head & mask_];
  }
  // [owner thread] Publishes the slot returned by the last reserve().
  void commit() noexcept {
    head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  // [owner thread] reserve + copy + commit.
  bool push(const Record& r) noexcept {
    Record* slot = reserve(r.source);
    if (slot == nullptr) return false;
    *slot = r;
    commit();
    return true;
  }
  // [owner thread] Counts a record that never reached the ring (e.g. scope too deep).
  void countDrop(Source source) noexcept {
    auto& c = dropped_[static_cast<int>(source)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // [consumer] Calls f(const Record&) for each record published so far, oldest first; returns how
  // many. Space is handed back to the producer every kReleaseEvery records, so a slow f does not
  // stall it for long.
  template <typename F>
  uint64_t drain(F&& f) {
    const uint64_t start = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    for (uint64_t i = start; i != head; ++i) {
      f(static_cast<const Record&>(slots_[i & mask_]));
      if (((i + 1 - start) % kReleaseEvery) == 0) tail_.store(i + 1, std::memory_order_release);
    }
    tail_.store(head, std::memory_order_release);
    return head - start;
  }
  // [consumer] Throws away everything published so far (stale records of a previous session).
  void discard() noexcept {
    tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release);
  }
  // [consumer] Drops counted since the previous call (or since baselineDrops()).
  DropCounts takeDrops() noexcept;
  void baselineDrops() noexcept { (void)takeDrops(); }

  // Any thread: records waiting (approximate while the producer runs).
  uint64_t size() const noexcept {
    return head_.load(std::memory_order_acquire) - tail_.load(std::memory_order_acquire);
  }
  uint32_t capacity() const noexcept { return static_cast<uint32_t>(capacity_); }
  uint64_t dropped(Source s) const noexcept {
    return dropped_[static_cast<int>(s)].load(std::memory_order_relaxed);
  }
  const ThreadInfo& info() const noexcept { return info_; }

 private:
  friend class ThreadBufferRegistry;
  static constexpr uint64_t kReleaseEvery = 256;

  // Producer side.
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t cached_tail_ = 0;
  std::atomic<uint64_t> dropped_[kSourceCount] = {};
  // Consumer side.
  alignas(64) std::atomic<uint64_t> tail_{0};
  uint64_t reported_[kSourceCount] = {};
  // Immutable after construction.
  alignas(64) Record* slots_ = nullptr;
  uint64_t capacity_ = 0;
  uint64_t mask_ = 0;
  ThreadInfo info_;
  bool retired_ = false;  // guarded by the registry's mutex
};

struct DrainStats {
  uint64_t records = 0;
  DropCounts dropped;  // drops since the previous drain, all buffers
  double max_fill =
      0;  // fullest buffer seen (0..1), before draining: lets the consumer drain sooner
  uint32_t buffers = 0;  // live buffers drained
  uint32_t freed = 0;    // retired buffers freed
};

// The set of all ThreadBuffers. One process-wide instance (global()); tests may create their own.
// At most one consumer at a time: attach() ... drainAll()* ... detach(), from one thread at a time.
class ThreadBufferRegistry {
 public:
  explicit ThreadBufferRegistry(uint32_t capacity = kThreadBufferRecords) : capacity_(capacity) {}
  ~ThreadBufferRegistry();
  static ThreadBufferRegistry& global();  // immortal

  // [new thread, first record] A buffer owned by the calling thread; nullptr when out of memory.
  ThreadBuffer* create(int64_t tid) noexcept;
  // [owner thread, at exit] Hands the buffer over: freed now when no consumer is attached, else
  // after the consumer's next drain. The owner must not touch it afterwards.
  void retire(ThreadBuffer* buffer) noexcept;

  // [consumer] Starts consuming: discards stale records and baselines drop counters.
  void attach();
  // [consumer] Stops consuming (after the final drainAll): frees retired buffers.
  void detach();
  // [consumer] Drains every buffer: f(const Record&, const ThreadInfo&). Frees buffers retired
  // before the call.
  template <typename F>
  DrainStats drainAll(F&& f) {
    DrainStats stats;
    takeSnapshot();
    for (auto& [buffer, retired] : snapshot_) {
      const double fill = static_cast<double>(buffer->size()) / buffer->capacity();
      if (fill > stats.max_fill) stats.max_fill = fill;
      const ThreadInfo& info = buffer->info();
      stats.records += buffer->drain([&](const Record& r) { f(r, info); });
      const DropCounts d = buffer->takeDrops();
      for (int s = 0; s < kSourceCount; ++s) stats.dropped.by_source[s] += d.by_source[s];
      ++stats.buffers;
    }
    stats.freed = freeRetiredFromSnapshot();
    return stats;
  }

  size_t bufferCount() const;
  uint32_t threadsSeen() const;

  // fork(): the mutex is held across the fork; in the child the consumer (the parent's session) is
  // gone, so the registry is detached there. Buffers of the parent's other threads stay registered
  // (never retired: those threads do not exist in the child); a later session in the child discards
  // their contents.
  void lockForFork() noexcept { mu_.lock(); }
  void unlockAfterFork(bool in_child) noexcept {
    if (in_child) attached_ = false;
    mu_.unlock();
  }

 private:
  void takeSnapshot();
  uint32_t freeRetiredFromSnapshot();

  const uint32_t capacity_;
  mutable std::mutex mu_;
  std::vector<ThreadBuffer*> buffers_;                    // guarded by mu_
  bool attached_ = false;                                 // guarded by mu_
  uint32_t next_index_ = 1;                               // guarded by mu_
  std::vector<std::pair<ThreadBuffer*, bool>> snapshot_;  // consumer only
};

}  // namespace gpufl::core
