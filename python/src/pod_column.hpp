// A growable column of numbers for tables with one row per kernel (millions of rows), handed to
// numpy whole.
//
// Why not std::vector: its growth allocates a new buffer and copies into it, so every row is copied
// about once more and every page is faulted in (and cleared by the kernel) about twice; a profile
// of 10M kernels spent 40% of the load there. realloc() of a large block moves its pages (mremap)
// instead: no copy, each page cleared once, and no moment where the old and the new buffer are both
// resident.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>

namespace gpufl::py {

template <typename T>
class PodColumn {
  static_assert(std::is_trivially_copyable_v<T>,
                "PodColumn grows by realloc: trivially copyable types only");

 public:
  PodColumn() = default;
  PodColumn(const PodColumn&) = delete;
  PodColumn& operator=(const PodColumn&) = delete;
  PodColumn(PodColumn&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  ~PodColumn() { std::free(data_); }

  void push_back(T v) {
    if (size_ == capacity_) grow();
    data_[size_++] = v;
  }
  size_t size() const { return size_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }

  // Hands the buffer to the caller, who frees it with std::free; the column is left empty.
  T* release() {
    T* p = data_;
    data_ = nullptr;
    size_ = capacity_ = 0;
    return p;
  }

 private:
  void grow() {
    const size_t capacity = capacity_ ? capacity_ * 2 : 4096;
    void* p = std::realloc(data_, capacity * sizeof(T));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    capacity_ = capacity;
  }

  T* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace gpufl::py
