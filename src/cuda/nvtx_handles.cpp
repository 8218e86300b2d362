#include "cuda/nvtx_handles.hpp"

namespace gpufl::cuda {

size_t NvtxHandleNames::home(uintptr_t handle) noexcept {
  // Handles are heap pointers: the low bits carry little; mix before masking.
  uint64_t h = static_cast<uint64_t>(handle) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h >> 32) & (kCapacity - 1);
}

bool NvtxHandleNames::put(uintptr_t handle, std::string_view text) noexcept {
  if (handle == 0) return false;
  try {
    std::lock_guard lock(mu_);
    for (size_t i = 0, s = home(handle); i < kCapacity; ++i, s = (s + 1) & (kCapacity - 1)) {
      const uintptr_t key = slots_[s].key.load(std::memory_order_relaxed);
      if (key != handle && key != 0) continue;
      if (key == handle) {
        const std::string* old = slots_[s].value.load(std::memory_order_relaxed);
        if (old != nullptr && *old == text) return true;  // re-registered: nothing new to keep
      }
      // Texts are never freed (lock-free readers may hold them): bound what replacements can add.
      if (texts_.size() >= kMaxTexts) return false;
      const std::string* stored = &texts_.emplace_back(text);
      slots_[s].value.store(stored, std::memory_order_release);
      if (key == 0) {
        // Value before key: a reader that sees the key sees its value.
        slots_[s].key.store(handle, std::memory_order_release);
        size_.fetch_add(1, std::memory_order_relaxed);
      }
      return true;
    }
  } catch (...) {
  }
  return false;
}

std::string_view NvtxHandleNames::get(uintptr_t handle) const noexcept {
  if (handle == 0) return {};
  for (size_t i = 0, s = home(handle); i < kCapacity; ++i, s = (s + 1) & (kCapacity - 1)) {
    const uintptr_t key = slots_[s].key.load(std::memory_order_acquire);
    if (key == 0) return {};  // keys are never removed: an empty slot ends the probe
    if (key == handle) {
      const std::string* v = slots_[s].value.load(std::memory_order_acquire);
      return v != nullptr ? std::string_view(*v) : std::string_view();
    }
  }
  return {};
}

NvtxHandleNames& nvtxDomainTags() {
  static NvtxHandleNames* table = new NvtxHandleNames();  // immortal (see header)
  return *table;
}

NvtxHandleNames& nvtxRegisteredStrings() {
  static NvtxHandleNames* table = new NvtxHandleNames();
  return *table;
}

}  // namespace gpufl::cuda
