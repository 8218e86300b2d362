// What the launching thread knew at launch time (scope, stack), keyed by CUPTI correlation id.
//
// A direct-mapped table written by application threads in the launch callback and read by the
// writer thread when the kernel's activity record arrives: no lock, no allocation, constant memory.
// A slot is reused after kSlots correlation ids; a record that arrives later than that finds its
// slot overwritten and is counted as unattributed (the kernel is still written, without scope).
// Each slot is a tiny seqlock: the correlation id is cleared, the payload written, then the id
// published with release order; the reader checks the id before and after copying the payload.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace gpufl::cuda {

struct LaunchInfo {
  uint32_t scope_path = 0;
  uint32_t stack_id = 0;
  uint32_t graph = 0;  // 1 when launched through a graph API
};

class CorrelationTable {
 public:
  static constexpr uint32_t kSlots = 1u << 18;  // 256 Ki correlation ids in flight, 4 MiB

  CorrelationTable();

  // [app thread] Records what is known about the launch with this correlation id.
  void put(uint32_t correlation_id, const LaunchInfo& info) {
    Slot& s = slots_[correlation_id & (kSlots - 1)];
    s.id.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    s.scope_path.store(info.scope_path, std::memory_order_relaxed);
    s.stack_id.store(info.stack_id, std::memory_order_relaxed);
    s.graph.store(info.graph, std::memory_order_relaxed);
    s.id.store(correlation_id, std::memory_order_release);
  }

  // [writer thread] The launch's info, or false when the slot was never written or already reused.
  bool get(uint32_t correlation_id, LaunchInfo* out) const {
    if (correlation_id == 0) return false;
    const Slot& s = slots_[correlation_id & (kSlots - 1)];
    if (s.id.load(std::memory_order_acquire) != correlation_id) return false;
    LaunchInfo info{s.scope_path.load(std::memory_order_relaxed),
                    s.stack_id.load(std::memory_order_relaxed),
                    s.graph.load(std::memory_order_relaxed)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.id.load(std::memory_order_relaxed) != correlation_id) return false;
    *out = info;
    return true;
  }

 private:
  struct Slot {
    std::atomic<uint32_t> id{0};
    std::atomic<uint32_t> scope_path{0};
    std::atomic<uint32_t> stack_id{0};
    std::atomic<uint32_t> graph{0};
  };
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace gpufl::cuda
