#include "core/clock.hpp"

namespace gpufl::core {
namespace {

int64_t read(clockid_t id) noexcept {
  timespec ts;
  if (clock_gettime(id, &ts) != 0) return 0;
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

int64_t unixNs() noexcept {
  return read(CLOCK_REALTIME);
}

uint64_t timestampCallback() {
  return static_cast<uint64_t>(monotonicNs());
}

uint64_t threadCpuNs() noexcept {
  return static_cast<uint64_t>(read(CLOCK_THREAD_CPUTIME_ID));
}

}  // namespace gpufl::core
