// What the launching thread knew at launch time, keyed by CUPTI correlation id, and whether the
// launch has completed: the attribution of activity records to scopes and stacks, and the
// "in flight" set of the flight recorder (launched, activity record not yet arrived).
//
// A direct-mapped table written by application threads in the launch callback and read by the
// writer thread when the activity record arrives: no lock, no allocation, constant memory
// (kSlots cache lines). A slot is reused after kSlots correlation ids; a record that arrives later
// than that finds its slot overwritten and is counted as unattributed (the kernel is still
// written, without scope). Each slot is a tiny seqlock: the correlation id is cleared, the payload
// written, then the id published with release order; a reader checks the id before and after
// copying the payload. Every member is an atomic of a lock-free size, so the table may also be read
// from a signal handler (pendingLaunches).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gpufl::core {

// What a launch put into the table was. Api: a call that is not GPU work of its own
// (a synchronize, an allocation): recorded for attribution only, never "in flight".
enum class LaunchKind : uint8_t { Api = 0, Kernel = 1, Graph = 2, Copy = 3 };
const char* launchKindName(LaunchKind kind);

struct LaunchInfo {
  uint32_t scope_path = 0;
  uint32_t stack_id = 0;
  uint32_t graph = 0;  // 1 when launched through a graph API
};

// Everything the table holds about one launch (pendingLaunches' output).
struct LaunchSlot {
  uint32_t correlation_id = 0;
  LaunchKind kind = LaunchKind::Api;
  LaunchInfo info;
  uint32_t tid = 0;
  int64_t launch_ns = 0;
  uint64_t stream = 0;         // CUstream handle
  uint64_t context = 0;        // CUcontext handle
  const char* name = nullptr;  // owned by the driver or static; may dangle once a module unloads
};

class LaunchTable {
 public:
  static constexpr uint32_t kSlots = 1u << 18;  // 256 Ki correlation ids in flight, 16 MiB

  LaunchTable();
  ~LaunchTable();
  LaunchTable(const LaunchTable&) = delete;
  LaunchTable& operator=(const LaunchTable&) = delete;

  // [app thread] Records what is known about the launch with this correlation id (kind Api: only
  // info, for attribution).
  void put(uint32_t correlation_id, const LaunchInfo& info) {
    put(LaunchSlot{correlation_id, LaunchKind::Api, info});
  }
  void put(const LaunchSlot& launch) {
    Slot& s = slots_[launch.correlation_id & (kSlots - 1)];
    s.id.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    s.scope_path.store(launch.info.scope_path, std::memory_order_relaxed);
    s.stack_id.store(launch.info.stack_id, std::memory_order_relaxed);
    s.state.store(stateOf(launch.kind, launch.info.graph != 0, false), std::memory_order_relaxed);
    s.tid.store(launch.tid, std::memory_order_relaxed);
    s.launch_ns.store(launch.launch_ns, std::memory_order_relaxed);
    s.stream.store(launch.stream, std::memory_order_relaxed);
    s.context.store(launch.context, std::memory_order_relaxed);
    s.name.store(launch.name, std::memory_order_relaxed);
    s.id.store(launch.correlation_id, std::memory_order_release);
  }

  // [writer thread] The launch's info, or false when the slot was never written or already reused.
  bool get(uint32_t correlation_id, LaunchInfo* out) const {
    int64_t launch_ns = 0;
    uint32_t tid = 0;
    return get(correlation_id, out, &launch_ns, &tid);
  }
  // [writer thread] The same, with when the launch call was made (the coarse clock) and on which
  // thread: 0 for calls put for attribution only.
  bool get(uint32_t correlation_id, LaunchInfo* out, int64_t* launch_ns, uint32_t* tid) const {
    if (correlation_id == 0) return false;
    const Slot& s = slots_[correlation_id & (kSlots - 1)];
    if (s.id.load(std::memory_order_acquire) != correlation_id) return false;
    const uint32_t state = s.state.load(std::memory_order_relaxed);
    LaunchInfo info{s.scope_path.load(std::memory_order_relaxed),
                    s.stack_id.load(std::memory_order_relaxed), (state & kGraphBit) ? 1u : 0u};
    const int64_t when = s.launch_ns.load(std::memory_order_relaxed);
    const uint32_t thread = s.tid.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.id.load(std::memory_order_relaxed) != correlation_id) return false;
    *out = info;
    *launch_ns = when;
    *tid = thread;
    return true;
  }

  // [writer thread, app thread at a failed launch's exit] The launch is no longer in flight: its
  // record arrived, or the launch call failed and no record will come.
  void complete(uint32_t correlation_id) {
    if (correlation_id == 0) return;
    Slot& s = slots_[correlation_id & (kSlots - 1)];
    if (s.id.load(std::memory_order_acquire) != correlation_id) return;
    s.state.fetch_or(kDoneBit, std::memory_order_release);
  }

  // [any thread, async-signal-safe] Copies up to `capacity` launches of GPU work that are not
  // complete into `out`, in launch order: the latest ones (highest correlation ids) when there are
  // more, or the oldest with `oldest`. Returns how many are pending in all. A slot being rewritten
  // while read is skipped.
  size_t pendingLaunches(LaunchSlot* out, size_t capacity, bool oldest = false) const;

 private:
  static constexpr uint32_t kKindMask = 0xff, kGraphBit = 0x100, kDoneBit = 0x200;
  static uint32_t stateOf(LaunchKind kind, bool graph, bool done) {
    return static_cast<uint32_t>(kind) | (graph ? kGraphBit : 0) | (done ? kDoneBit : 0);
  }

  struct alignas(64) Slot {
    std::atomic<uint32_t> id{0};
    std::atomic<uint32_t> state{0};  // kind | graph bit | done bit
    std::atomic<uint32_t> scope_path{0};
    std::atomic<uint32_t> stack_id{0};
    std::atomic<uint32_t> tid{0};
    std::atomic<int64_t> launch_ns{0};
    std::atomic<uint64_t> stream{0};
    std::atomic<uint64_t> context{0};
    std::atomic<const char*> name{nullptr};
  };
  // Zeroed pages from calloc (all-zero bytes are every atomic's empty state): the memory of slots
  // never used costs nothing, and a session without a GPU never touches the table.
  Slot* slots_;
};

}  // namespace gpufl::core
