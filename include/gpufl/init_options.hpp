// gpufl::InitOptions, described once. Each row of GFL_INIT_OPTIONS is one option:
//
//   X(C++ type, name, default, environment variable, what it does)
//
// and everything else follows from the rows: the struct below, the GPUFL_* environment overrides
// (src/runtime/options_env.cpp), the `options` object of session_start, the Python binding's
// keywords (python/src/api_bindings.cpp) and the table python/gpufl/_api.py checks its init()
// against (python/tests/test_init_options.py). docs/runtime.md lists every row (checked by
// src/runtime/options_env_test.cpp). Adding an option is one row here plus the code that uses it.
//
// Row order is the struct's member order (C++20 designated initializers follow it): append new
// rows. Every environment variable wins over the value passed to init; unset or empty means no
// override.
#pragma once

#include <cstdint>
#include <string>

#include "gpufl/profiling_engine.hpp"

// clang-format off
#define GFL_INIT_OPTIONS(X)                                                                        \
  X(std::string, app_name, "gpufl", "GPUFL_APP_NAME",                                              \
    "name of the program, in session_start and the report")                                        \
  X(std::string, log_path, "", "GPUFL_LOG_PATH",                                                   \
    "log prefix: <prefix>.device.log, .scope.log, .system.log; empty: ./<app_name>")               \
  X(bool, sampling_auto_start, true, "GPUFL_SAMPLING_AUTO_START",                                  \
    "start NVML/host sampling at init (false: startSystemSampling() starts it)")                   \
  X(int, system_sample_rate_ms, 100, "GPUFL_SAMPLE_RATE_MS",                                       \
    "system sampling period in ms, 0..3600000; 0 disables system sampling")                        \
  X(bool, enable_kernel_details, true, "GPUFL_KERNEL_DETAILS",                                     \
    "registers, shared memory and occupancy per launch shape (kernel_def records)")                \
  X(bool, enable_stack_trace, false, "GPUFL_STACK_TRACE",                                          \
    "host call stack of each launch")                                                              \
  X(bool, enable_debug_output, false, "GPUFL_DEBUG",                                               \
    "gpufl's own diagnostics on stderr")                                                           \
  X(bool, enable_nvtx, true, "GPUFL_NVTX",                                                         \
    "NVTX push/pop ranges become scopes (docs/nvtx.md)")                                           \
  X(bool, enable_sync_events, false, "GPUFL_SYNC_EVENTS",                                          \
    "host waits on the GPU (stream/event/device synchronize) as sync_event records")               \
  X(bool, enable_memory_events, false, "GPUFL_MEMORY_EVENTS",                                      \
    "device/pinned/managed allocations and releases as memory_event records")                      \
  X(::gpufl::ProfilingEngine, profiling_engine, ::gpufl::ProfilingEngine::None, "GPUFL_ENGINE",    \
    "deep engine: None, PcSampling, SassMetrics, PcSamplingWithSass, RangeProfiler")               \
  X(int, deep_launches_per_kernel, 5, "GPUFL_DEEP_LAUNCHES_PER_KERNEL",                            \
    "deep engines instrument the first N launches of each kernel")                                 \
  X(std::uint64_t, rotate_bytes, 64ull << 20, "GPUFL_ROTATE_BYTES",                                \
    "log segment size before rotation in bytes (0: never rotate)")                                 \
  X(bool, kernel_blocks, false, "GPUFL_KERNEL_BLOCKS",                                             \
    "kernel events as compressed column blocks (kernel_block lines, about half the .zst bytes)")  \
  X(int, hang_timeout_s, 60, "GPUFL_HANG_TIMEOUT_S",                                               \
    "an incident when the GPU makes no progress or a host thread waits on it this long; 0: off")  \
  X(bool, incident_signals, true, "GPUFL_INCIDENT_SIGNALS",                                        \
    "on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and std::terminate: an incident and a flush")      \
  X(int, health_period_s, 30, "GPUFL_HEALTH_PERIOD_S",                                             \
    "a health record (gpufl's own CPU, memory, records, drops, record checks) every N s; 0: at end") \
  X(int, max_cpu_pct, 0, "GPUFL_MAX_CPU_PCT",                                                      \
    "gpufl's own CPU limit, % of one core over a health period: above it gpufl steps down; 0: none") \
  X(int, max_memory_mb, 0, "GPUFL_MAX_MEMORY_MB",                                                  \
    "memory gpufl's own buffers may hold, MiB: above it gpufl steps down; 0: no limit")
// clang-format on

namespace gpufl {

struct InitOptions {
#define GFL_INIT_OPTION_MEMBER_(type, name, default_value, env, doc) type name = default_value;
  GFL_INIT_OPTIONS(GFL_INIT_OPTION_MEMBER_)
#undef GFL_INIT_OPTION_MEMBER_
};

}  // namespace gpufl
