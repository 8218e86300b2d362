// NVTX handles -> their text: a domain handle (nvtxDomainCreateA) to the scope tag of its ranges,
// a registered string handle (nvtxDomainRegisterStringA) to the string, so ranges pushed with
// NVTX_MESSAGE_TYPE_REGISTERED keep their name.
//
// The handles are the NVTX implementation's (CUPTI's) pointers; we learn them from CUPTI's NVTX
// callbacks for the create/register calls, which fire on the application thread with the return
// value. Registration is rare and lookups sit on the NVTX push path, so inserts take a mutex and
// lookups are lock-free: open addressing over atomic keys, the value published before the key, and
// values (copies of the text) never freed. A handle registered before gpufl subscribed is not
// known; its ranges fall back to the default tag / an unnamed range. Full table: new handles are
// not kept.
//
// Thread-safe. The process's two tables (nvtxDomainTags(), nvtxRegisteredStrings()) are immortal:
// handles outlive sessions, and callbacks may run during static destruction.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>

namespace gpufl::cuda {

class NvtxHandleNames {
 public:
  static constexpr size_t kCapacity = 4096;  // power of two; NVTX users register a few dozen
  static constexpr size_t kMaxTexts = 4 * kCapacity;

  // Maps `handle` (non-zero) to a copy of `text`; a second put for the same handle (a handle value
  // reused after nvtxDomainDestroy) replaces the text. False when the table is full (or after
  // kMaxTexts distinct texts).
  bool put(uintptr_t handle, std::string_view text) noexcept;
  // The text of `handle`, or an empty view when unknown. Lock-free; the view stays valid for the
  // table's lifetime.
  std::string_view get(uintptr_t handle) const noexcept;
  size_t size() const noexcept { return size_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    std::atomic<uintptr_t> key{0};
    std::atomic<const std::string*> value{nullptr};
  };
  static size_t home(uintptr_t handle) noexcept;

  Slot slots_[kCapacity];
  std::atomic<size_t> size_{0};
  std::mutex mu_;                  // inserts
  std::deque<std::string> texts_;  // stable storage of every value ever published (guarded by mu_)
};

// Domain handle -> tag of its ranges ("nvtx:<domain name>").
NvtxHandleNames& nvtxDomainTags();
// Registered string handle -> the string.
NvtxHandleNames& nvtxRegisteredStrings();

}  // namespace gpufl::cuda
