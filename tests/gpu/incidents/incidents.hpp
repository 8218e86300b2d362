// The incident programs: what the flight recorder (issue 28) must explain, as a real program would
// meet it: a kernel writing far out of bounds, a kernel that never gets its flag, two threads
// deadlocked through the GPU, an allocation larger than the device, a host crash; and the mixed
// program of issue 29 whose carveout the kernel_def lost. One program, one case per run:
//
//   gpufl_incidents [--linked] CASE [args]
//
// Plain (no --linked, GFL_LINKED unset) it is an unmodified program for `gpufl trace`; --linked or
// GFL_LINKED=1 starts gpufl itself (gpufl::init, options from the GPUFL_* environment).
// tests/gpu/incidents/check_incidents.py runs every case plain, traced and linked and reads what
// each printed: `RESULT ...` lines (the same with and without gpufl), `TID`, `HANDLE`, `COUNT`,
// `REQUEST`, `TOTAL`, `SINCE_SYNC` and `OCCUPANCY` lines (facts of this run the log must agree
// with).
#pragma once

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

// A CUDA call that must succeed; a failure ends the program as real programs do: the call, the
// error's text and code on stderr, exit status 1. The checker reads `failed: <text> (<code>)`.
#define INCIDENT_CHECK(call)                                 \
  do {                                                       \
    const cudaError_t err_ = (call);                         \
    if (err_ != cudaSuccess) ::incidents::fail(#call, err_); \
  } while (0)

namespace incidents {

[[noreturn]] inline void fail(const char* what, cudaError_t err) {
  std::fprintf(stderr, "%s failed: %s (%d)\n", what, cudaGetErrorString(err), int(err));
  std::exit(1);
}

using Case = int (*)(int argc, char** argv);  // argv[0] is the case name; returns the exit status
std::map<std::string, Case>& cases();
struct Register {
  Register(const char* name, Case c) { cases()[name] = c; }
};

// A named scope, linked and under `gpufl trace` alike: an NVTX push/pop range (docs/nvtx.md).
struct Range {
  explicit Range(const char* name) { nvtxRangePushA(name); }
  ~Range() { nvtxRangePop(); }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
};

// The calling thread's OS id (what gpufl records as `tid`).
long threadId();
// `<key> <value>` on stdout, flushed, under a lock (threads print too).
void fact(const char* key, const std::string& value);
inline void fact(const char* key, long long value) {
  fact(key, std::to_string(value));
}
inline uint64_t handle(cudaStream_t s) {
  return reinterpret_cast<uint64_t>(s);
}

}  // namespace incidents
