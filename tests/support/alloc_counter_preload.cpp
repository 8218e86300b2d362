// LD_PRELOAD library for no_alloc_test: malloc, calloc and realloc count the calls made on a thread
// while counting is on there, then hand over to glibc's own allocator (__libc_*). free is glibc's.
#include <cstddef>
#include <cstdint>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
}

namespace {
// initial-exec: a preloaded library's TLS is static, and reading it never calls malloc.
__thread bool t_counting __attribute__((tls_model("initial-exec"))) = false;
__thread uint64_t t_calls __attribute__((tls_model("initial-exec"))) = 0;
}  // namespace

extern "C" {

__attribute__((visibility("default"))) void gpuflTestStartCountingAllocations() {
  t_calls = 0;
  t_counting = true;
}

__attribute__((visibility("default"))) uint64_t gpuflTestStopCountingAllocations() {
  t_counting = false;
  return t_calls;
}

__attribute__((visibility("default"))) void* malloc(size_t size) {
  if (t_counting) ++t_calls;
  return __libc_malloc(size);
}

__attribute__((visibility("default"))) void* calloc(size_t count, size_t size) {
  if (t_counting) ++t_calls;
  return __libc_calloc(count, size);
}

__attribute__((visibility("default"))) void* realloc(void* p, size_t size) {
  if (t_counting) ++t_calls;
  return __libc_realloc(p, size);
}

}  // extern "C"
