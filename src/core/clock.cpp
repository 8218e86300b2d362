#include "core/clock.hpp"

#include <ctime>

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

std::string utcText(int64_t unix_ns) {
  const std::time_t secs = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace gpufl::core
