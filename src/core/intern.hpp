// Interning of scope names, tags and scope paths into small integer ids.
//
// One process-wide table per kind: append-only, guarded by a mutex for inserts, with stable storage
// so a published entry can be read without a lock (by the writer thread, and by the thread-local
// caches). In front of it, each thread keeps a small direct-mapped cache (NameCache, PathCache), so
// a name seen before costs a hash, a compare and no lock or allocation. Ids are process-wide and
// never reused; a session emits the paths it uses.
//
// Names: id 0 is the empty string. Paths: id 0 is the root (outside any scope); a path is (parent
// path, name) and its depth is the number of enclosing scopes (a top-level scope has depth 0).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/bytes.hpp"

namespace gpufl::core {

inline constexpr uint32_t kEmptyName = 0;
inline constexpr uint32_t kRootPath = 0;
inline constexpr uint32_t kInternFailed = 0xffffffffu;  // table full or out of memory
// Bounds (names built at run time, e.g. f-strings in Python, must not grow memory without limit):
// past them, interning fails and the scope is dropped and counted.
inline constexpr uint32_t kMaxNames = 1u << 20;
inline constexpr uint32_t kMaxPaths = 1u << 20;

// A fast 64-bit hash of a byte string (for cache and table lookups; not cryptographic).
inline uint64_t hashBytes(const char* p, size_t n) noexcept {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = (n + 1) * 0xff51afd7ed558ccdull;
  auto mix = [&](uint64_t w) {
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  };
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      mix(w);
    }
    if (i < n) {
      uint64_t w;
      std::memcpy(&w, p + n - 8, 8);  // overlapping tail
      mix(w);
    }
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    mix((uint64_t{a} << 32) | b);
  } else if (n > 0) {
    const auto c = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
    mix((c(0) << 16) | (c(n / 2) << 8) | c(n - 1));
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

struct PathInfo {
  uint32_t parent = kRootPath;
  uint32_t name = kEmptyName;
  uint32_t depth = 0;
};

// The process-wide tables. Immortal (never destroyed), so threads still running at exit can use
// them.
class InternTable {
 public:
  static InternTable& instance();

  // Slow paths (take the mutex). Return kInternFailed when the table is full or memory runs out;
  // never throw.
  uint32_t internName(std::string_view s) noexcept;
  uint32_t internPath(uint32_t parent, uint32_t name) noexcept;

  // Lock-free reads of published ids (any id returned by intern*). Unknown ids read as "" / root.
  std::string_view name(uint32_t id) const noexcept;
  PathInfo path(uint32_t id) const noexcept;

  uint32_t nameCount() const noexcept;  // including the empty name
  uint32_t pathCount() const noexcept;  // including the root

  // fork(): held across the fork so the child gets a consistent, unlocked table (see
  // forkPrepare()).
  void lockForFork() noexcept;
  void unlockAfterFork() noexcept;

  struct Impl;

 private:
  InternTable();
  Impl* impl_;
};

// Per-thread, direct-mapped cache in front of InternTable::internName. Not thread-safe: one per
// thread.
class NameCache {
 public:
  uint32_t intern(std::string_view s) noexcept {
    const char* stored;
    return intern(s, &stored);
  }
  // Also gives the table's stable copy of the name (nullptr for the empty name or on failure).
  uint32_t intern(std::string_view s, const char** stored) noexcept {
    *stored = nullptr;
    if (s.empty()) return kEmptyName;
    const uint64_t h = hashBytes(s.data(), s.size());
    Entry& e = entries_[h & (kSize - 1)];
    if (!(e.hash == h && e.len == s.size() && sameBytes(e.data, s.data(), s.size())) &&
        miss(e, h, s) == kInternFailed)
      return kInternFailed;
    *stored = e.data;
    return e.id;
  }

 private:
  static constexpr size_t kSize = 256;
  struct Entry {
    uint64_t hash = 0;
    const char* data = nullptr;  // the table's stable copy
    size_t len = 0;
    uint32_t id = 0;
  };
  uint32_t miss(Entry& e, uint64_t h, std::string_view s) noexcept;
  Entry entries_[kSize];
};

// Per-thread cache in front of InternTable::internPath. Not thread-safe: one per thread.
class PathCache {
 public:
  uint32_t intern(uint32_t parent, uint32_t name) noexcept {
    const uint64_t key = (uint64_t{parent} << 32) | name;
    const uint64_t h = (key + 1) * 0x9E3779B97F4A7C15ull;
    Entry& e = entries_[h >> (64 - kBits)];
    if (e.id != 0 && e.key == key) return e.id;
    return miss(e, key);
  }

 private:
  static constexpr int kBits = 8;
  struct Entry {
    uint64_t key = 0;
    uint32_t id = 0;  // 0: empty slot (the root is never cached)
  };
  uint32_t miss(Entry& e, uint64_t key) noexcept;
  Entry entries_[size_t{1} << kBits];
};

}  // namespace gpufl::core
