#include "no_alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local bool t_counting = false;
thread_local uint64_t t_news = 0;
}  // namespace

void startCountingNew() {
  t_news = 0;
  t_counting = true;
}

uint64_t stopCountingNew() {
  t_counting = false;
  return t_news;
}

void* operator new(std::size_t n) {
  if (t_counting) ++t_news;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

void operator delete(void* p) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
