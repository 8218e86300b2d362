// A column of unsigned ids (kernel definition, stream, scope path, stack, graph, correlation id)
// kept in the narrowest of 1, 2, 4 or 8 bytes that holds every value so far, for tables with one
// row per kernel: ids are small (a few hundred definitions, a few streams), so a 10M-kernel table
// spends 1-2 bytes on each instead of 4 or 8, and never holds a wide copy at any moment. A value
// that does not fit widens the whole column once (at most three times in its life; a growing
// correlation id widens at 256 and 65,536 rows, when the copy is small).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace gpufl::py {

class NarrowColumn {
 public:
  NarrowColumn() = default;
  NarrowColumn(const NarrowColumn&) = delete;
  NarrowColumn& operator=(const NarrowColumn&) = delete;
  ~NarrowColumn() { std::free(data_); }

  void push_back(uint64_t v) {
    if (v > max_) widen(v);
    if (size_ == capacity_) grow();
    switch (width_) {
      case 1:
        static_cast<uint8_t*>(data_)[size_] = static_cast<uint8_t>(v);
        break;
      case 2:
        static_cast<uint16_t*>(data_)[size_] = static_cast<uint16_t>(v);
        break;
      case 4:
        static_cast<uint32_t*>(data_)[size_] = static_cast<uint32_t>(v);
        break;
      default:
        static_cast<uint64_t*>(data_)[size_] = v;
        break;
    }
    ++size_;
  }

  size_t size() const { return size_; }
  int width() const { return width_; }  // bytes per value
  uint64_t at(size_t i) const {
    switch (width_) {
      case 1:
        return static_cast<const uint8_t*>(data_)[i];
      case 2:
        return static_cast<const uint16_t*>(data_)[i];
      case 4:
        return static_cast<const uint32_t*>(data_)[i];
      default:
        return static_cast<const uint64_t*>(data_)[i];
    }
  }

  // Hands the buffer (size() values of width() bytes) to the caller, who frees it with std::free.
  void* release() {
    void* p = data_;
    data_ = nullptr;
    size_ = capacity_ = 0;
    return p;
  }

 private:
  template <typename From, typename To>
  static void copyWide(const void* from, void* to, size_t n) {
    // Backwards: `to` may be the same block, grown in place (each value moves right).
    for (size_t i = n; i-- > 0;) static_cast<To*>(to)[i] = static_cast<const From*>(from)[i];
  }
  template <typename From>
  static void copyFrom(const void* from, void* to, size_t n, int width) {
    if (width == 2) copyWide<From, uint16_t>(from, to, n);
    if (width == 4) copyWide<From, uint32_t>(from, to, n);
    if (width == 8) copyWide<From, uint64_t>(from, to, n);
  }

  void widen(uint64_t v) {
    int width = width_;
    uint64_t max = max_;
    while (v > max) {
      width *= 2;
      max = width == 8 ? UINT64_MAX : (uint64_t{1} << (8 * width)) - 1;
    }
    void* p = std::realloc(data_, (capacity_ ? capacity_ : 1) * width);
    if (!p) throw std::bad_alloc();
    if (width_ == 1) copyFrom<uint8_t>(p, p, size_, width);
    if (width_ == 2) copyFrom<uint16_t>(p, p, size_, width);
    if (width_ == 4) copyFrom<uint32_t>(p, p, size_, width);
    data_ = p;
    width_ = width;
    max_ = max;
  }

  void grow() {
    const size_t capacity = capacity_ ? capacity_ * 2 : 4096;
    void* p = std::realloc(data_, capacity * width_);  // large blocks move by mremap: no copy
    if (!p) throw std::bad_alloc();
    data_ = p;
    capacity_ = capacity;
  }

  void* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
  int width_ = 1;
  uint64_t max_ = UINT8_MAX;
};

}  // namespace gpufl::py
