#include "core/intern.hpp"

#include <memory>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpufl::core {
namespace {

// Append-only array readable without a lock: entries live in fixed chunks that never move, and
// `size_` is published with release after the entry is written. Appends are serialised by the
// owner's mutex.
template <typename T, uint32_t kMax>
class StableArray {
 public:
  static constexpr uint32_t kChunk = 4096;

  // [under the owner's mutex] Returns false when full or out of memory.
  bool append(const T& v) noexcept {
    const uint32_t n = size_.load(std::memory_order_relaxed);
    if (n >= kMax) return false;
    T*& chunk_slot = owned_[n / kChunk];
    if (chunk_slot == nullptr) {
      chunk_slot = new (std::nothrow) T[kChunk];
      if (chunk_slot == nullptr) return false;
      chunks_[n / kChunk].store(chunk_slot, std::memory_order_release);
    }
    chunk_slot[n % kChunk] = v;
    size_.store(n + 1, std::memory_order_release);
    return true;
  }

  uint32_t size() const noexcept { return size_.load(std::memory_order_acquire); }

  // Lock-free: valid for i < size().
  const T& operator[](uint32_t i) const noexcept {
    return chunks_[i / kChunk].load(std::memory_order_acquire)[i % kChunk];
  }

 private:
  std::atomic<T*> chunks_[kMax / kChunk] = {};
  T* owned_[kMax / kChunk] = {};  // the writer's view, read only under the mutex
  std::atomic<uint32_t> size_{0};
};

// Stable character storage: blocks are never freed or moved.
class Arena {
 public:
  const char* copy(std::string_view s) {
    if (s.size() > kBlock / 4) {
      blocks_.push_back(std::make_unique<char[]>(s.size()));
      std::memcpy(blocks_.back().get(), s.data(), s.size());
      return blocks_.back().get();
    }
    if (blocks_.empty() || used_ + s.size() > kBlock) {
      // Oversized strings get their own block above; keep filling the current small block.
      blocks_.push_back(std::make_unique<char[]>(kBlock));
      current_ = blocks_.back().get();
      used_ = 0;
    }
    char* out = current_ + used_;
    std::memcpy(out, s.data(), s.size());
    used_ += s.size();
    return out;
  }

 private:
  static constexpr size_t kBlock = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* current_ = nullptr;
  size_t used_ = 0;
};

struct NameEntry {
  const char* data = nullptr;
  uint32_t len = 0;
};

}  // namespace

struct InternTable::Impl {
  std::mutex mu;
  Arena arena;
  std::unordered_map<std::string_view, uint32_t> name_ids;
  std::unordered_map<uint64_t, uint32_t> path_ids;
  StableArray<NameEntry, kMaxNames> names;
  StableArray<PathInfo, kMaxPaths> paths;
};

InternTable& InternTable::instance() {
  static InternTable* table =
      new InternTable();  // immortal: used by threads that outlive static destructors
  return *table;
}

InternTable::InternTable() : impl_(new Impl()) {
  impl_->names.append(NameEntry{"", 0});  // id 0: the empty name
  impl_->paths.append(PathInfo{});        // id 0: the root
}

uint32_t InternTable::internName(std::string_view s) noexcept {
  if (s.empty()) return kEmptyName;
  if (s.size() > 0xffffffffu) return kInternFailed;
  try {
    std::lock_guard lock(impl_->mu);
    if (auto it = impl_->name_ids.find(s); it != impl_->name_ids.end()) return it->second;
    const uint32_t id = impl_->names.size();
    if (id >= kMaxNames) return kInternFailed;
    const char* stored = impl_->arena.copy(s);
    if (!impl_->names.append(NameEntry{stored, static_cast<uint32_t>(s.size())}))
      return kInternFailed;
    impl_->name_ids.emplace(std::string_view(stored, s.size()), id);
    return id;
  } catch (...) {
    return kInternFailed;
  }
}

uint32_t InternTable::internPath(uint32_t parent, uint32_t name) noexcept {
  if (parent >= pathCount() || name >= nameCount()) return kInternFailed;
  const uint64_t key = (uint64_t{parent} << 32) | name;
  try {
    std::lock_guard lock(impl_->mu);
    if (auto it = impl_->path_ids.find(key); it != impl_->path_ids.end()) return it->second;
    const uint32_t id = impl_->paths.size();
    const uint32_t depth = parent == kRootPath ? 0 : impl_->paths[parent].depth + 1;
    if (!impl_->paths.append(PathInfo{parent, name, depth})) return kInternFailed;
    impl_->path_ids.emplace(key, id);
    return id;
  } catch (...) {
    return kInternFailed;
  }
}

std::string_view InternTable::name(uint32_t id) const noexcept {
  if (id >= impl_->names.size()) return {};
  const NameEntry& e = impl_->names[id];
  return {e.data, e.len};
}

PathInfo InternTable::path(uint32_t id) const noexcept {
  if (id >= impl_->paths.size()) return {};
  return impl_->paths[id];
}

uint32_t InternTable::nameCount() const noexcept {
  return impl_->names.size();
}
uint32_t InternTable::pathCount() const noexcept {
  return impl_->paths.size();
}

void InternTable::lockForFork() noexcept {
  impl_->mu.lock();
}
void InternTable::unlockAfterFork() noexcept {
  impl_->mu.unlock();
}

uint32_t NameCache::miss(Entry& e, uint64_t h, std::string_view s) noexcept {
  InternTable& table = InternTable::instance();
  const uint32_t id = table.internName(s);
  if (id == kInternFailed) return id;
  const std::string_view stored = table.name(id);  // stable storage: safe to keep a pointer to it
  e = Entry{h, stored.data(), stored.size(), id};
  return id;
}

uint32_t PathCache::miss(Entry& e, uint64_t key) noexcept {
  const uint32_t id = InternTable::instance().internPath(static_cast<uint32_t>(key >> 32),
                                                         static_cast<uint32_t>(key));
  if (id != kInternFailed) e = Entry{key, id};
  return id;
}

}  // namespace gpufl::core
