// The one timeline of a session: CLOCK_MONOTONIC in nanoseconds. Every *_ns timestamp in a log is
// on it; the CUDA backend hands timestampCallback() to CUPTI so GPU timestamps land on it too
// (docs/log-format.md, "Clock").
#pragma once

#include <time.h>

#include <cstdint>
#include <string>

namespace gpufl::core {

// CLOCK_MONOTONIC, ns. Inline: it is on the scope hot path (a vDSO call, ~15-20 ns).
inline int64_t monotonicNs() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// CLOCK_REALTIME, ns since the Unix epoch: only to pair the monotonic start with wall-clock time.
int64_t unixNs() noexcept;

// "2026-05-22 05:05:33 UTC" for ns since the Unix epoch: the one way gpufl prints wall-clock time.
std::string utcText(int64_t unix_ns);

// The same clock with the signature CUPTI's cuptiActivityRegisterTimestampCallback wants (uint64_t
// (*)(void)).
uint64_t timestampCallback();

// CPU time consumed by the calling thread (CLOCK_THREAD_CPUTIME_ID), ns. For self-overhead
// accounting.
uint64_t threadCpuNs() noexcept;

}  // namespace gpufl::core
