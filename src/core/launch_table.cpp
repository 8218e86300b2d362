#include "core/launch_table.hpp"

#include <cstdlib>
#include <new>

namespace gpufl::core {

const char* launchKindName(LaunchKind kind) {
  switch (kind) {
    case LaunchKind::Kernel:
      return "kernel";
    case LaunchKind::Graph:
      return "graph";
    case LaunchKind::Copy:
      return "copy";
    case LaunchKind::Api:
      break;
  }
  return "api";
}

LaunchTable::LaunchTable() : slots_(static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot)))) {
  if (slots_ == nullptr) throw std::bad_alloc();
}

LaunchTable::~LaunchTable() {
  std::free(slots_);
}

size_t LaunchTable::pendingLaunches(LaunchSlot* out, size_t capacity, bool oldest) const {
  size_t pending = 0, kept = 0;  // out[0, kept) sorted by correlation id
  for (uint32_t i = 0; i < kSlots; ++i) {
    const Slot& s = slots_[i];
    const uint32_t id = s.id.load(std::memory_order_acquire);
    if (id == 0) continue;
    const uint32_t state = s.state.load(std::memory_order_relaxed);
    const auto kind = static_cast<LaunchKind>(state & kKindMask);
    if (kind == LaunchKind::Api || (state & kDoneBit) != 0) continue;
    LaunchSlot launch;
    launch.correlation_id = id;
    launch.kind = kind;
    launch.info = {s.scope_path.load(std::memory_order_relaxed),
                   s.stack_id.load(std::memory_order_relaxed), (state & kGraphBit) ? 1u : 0u};
    launch.tid = s.tid.load(std::memory_order_relaxed);
    launch.launch_ns = s.launch_ns.load(std::memory_order_relaxed);
    launch.stream = s.stream.load(std::memory_order_relaxed);
    launch.context = s.context.load(std::memory_order_relaxed);
    launch.name = s.name.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.id.load(std::memory_order_relaxed) != id) continue;  // rewritten meanwhile
    ++pending;
    if (capacity == 0) continue;
    if (kept == capacity) {
      if (oldest) {
        if (id > out[kept - 1].correlation_id) continue;  // newer than every one kept
        --kept;                                           // the newest kept makes room
      } else {
        if (id < out[0].correlation_id) continue;  // older than every one kept
        for (size_t j = 1; j < kept; ++j) out[j - 1] = out[j];
        --kept;
      }
    }
    size_t at = kept;
    while (at > 0 && out[at - 1].correlation_id > id) {
      out[at] = out[at - 1];
      --at;
    }
    out[at] = launch;
    ++kept;
  }
  return pending;
}

}  // namespace gpufl::core
