// Counts heap allocations (malloc, calloc, realloc: operator new ends in malloc) made on the
// calling thread between start and stop. The counter is a small library loaded with LD_PRELOAD
// (alloc_counter_preload.cpp; CTest sets it: gpufl_preload_alloc_counter in CMakeLists.txt). A
// preloaded malloc comes first for every library of the process, so allocations inside
// libgpufl.so and libstdc++ are seen whatever their link flags.
// A replaced operator new in the test binary was not: on the H200 (g++ 13.3) libgpufl.so's calls
// never reached it, so the check could not fail there.
#pragma once

#include <dlfcn.h>

#include <cstdint>

struct AllocationCounter {
  using StartFn = void (*)();
  using StopFn = uint64_t (*)();
  StartFn start =
      reinterpret_cast<StartFn>(dlsym(RTLD_DEFAULT, "gpuflTestStartCountingAllocations"));
  StopFn stop = reinterpret_cast<StopFn>(dlsym(RTLD_DEFAULT, "gpuflTestStopCountingAllocations"));
  bool loaded() const { return start != nullptr && stop != nullptr; }
};
