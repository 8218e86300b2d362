// libcupti, loaded at run time behind one table (docs/architecture.md: each vendor library is
// reached through one table of its functions). libgpufl does not link libcupti, so it loads where
// CUPTI is absent and tracing turns off with a note that says why ("libcupti.so.13 not found
// (looked in ...)", "libcupti too old: cuptiX missing").
//
// Where libcupti is looked for, first file that loads wins. This is the one search of gpufl: the
// Python package passes its preference in (step 2) rather than searching itself.
//   0. a libcupti.so.13 already loaded in this process (by the application or a tool): reused,
//      never a second copy;
//   1. $GPUFL_CUPTI_LIB, a file (or soname) to load; when set, nothing else is tried;
//   2. $GPUFL_CUPTI_DIRS, directories separated by ':', in order. gpufl.init (Python) sets it, when
//      unset, to the nvidia pip wheels' CUPTI directories on sys.path (nvidia/cu13/lib, then
//      nvidia/cuda_cupti/lib, per sys.path entry): the copy PyTorch and numba-cuda load, so both
//      share one CUPTI (validated on the H200 with PyTorch 2.11);
//   3. "libcupti.so.13" then "libcupti.so" through the dynamic loader (LD_LIBRARY_PATH, RUNPATH,
//      ld.so.cache);
//   4. $CUDA_HOME, $CUDA_PATH, /usr/local/cuda: each's lib64/ and extras/CUPTI/lib64/;
//   5. the nvidia-cuda-cupti pip wheel, relative to the directory of the object holding gpufl
//      (libgpufl.so or the Python extension, found with dladdr): ../nvidia/cuda_cupti/lib,
//      ../../nvidia/cuda_cupti/lib, and the CUDA 13 wheel layout ../nvidia/cu13/lib,
//      ../../nvidia/cu13/lib.
// In each directory libcupti.so.13 is tried before libcupti.so; a directory that does not exist is
// skipped (and named in the error). The library is never unloaded.
//
// Call sites use the forwarders of cuda/cupti_api.hpp (cupti::cuptiSubscribe(...)); this header is
// for code that needs the table itself (availability checks, tests). Only src/cuda includes either.
#pragma once

#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// Every CUPTI function gpufl calls, X(name), grouped by the feature that needs it. Adding a call to
// CUPTI means adding its name here (the forwarder and the dlsym come from this list).
#define GPUFL_CUPTI_TRACING(X)         \
  X(cuptiGetVersion)                   \
  X(cuptiGetResultString)              \
  X(cuptiSubscribe)                    \
  X(cuptiUnsubscribe)                  \
  X(cuptiEnableCallback)               \
  X(cuptiGetDeviceId)                  \
  X(cuptiActivityEnable)               \
  X(cuptiActivityDisable)              \
  X(cuptiActivityFlushAll)             \
  X(cuptiActivityFlushPeriod)          \
  X(cuptiActivityGetNextRecord)        \
  X(cuptiActivityGetNumDroppedRecords) \
  X(cuptiActivityRegisterCallbacks)    \
  X(cuptiActivityRegisterTimestampCallback)
#define GPUFL_CUPTI_OPTIONAL(X)      \
  X(cuptiGetErrorMessage)            \
  X(cuptiGetTimestamp)               \
  X(cuptiGetCubinCrc)                \
  X(cuptiGetSassToSourceCorrelation) \
  X(cuptiGetStreamIdEx)              \
  X(cuptiActivitySetAttribute)       \
  X(cuptiFinalize)
#define GPUFL_CUPTI_PROFILER(X) \
  X(cuptiProfilerInitialize)    \
  X(cuptiProfilerDeInitialize)  \
  X(cuptiDeviceGetChipName)
#define GPUFL_CUPTI_SASS_METRICS(X)    \
  X(cuptiSassMetricsGetNumOfMetrics)   \
  X(cuptiSassMetricsGetMetrics)        \
  X(cuptiSassMetricsGetProperties)     \
  X(cuptiSassMetricsSetConfig)         \
  X(cuptiSassMetricsUnsetConfig)       \
  X(cuptiSassMetricsEnable)            \
  X(cuptiSassMetricsDisable)           \
  X(cuptiSassMetricsGetDataProperties) \
  X(cuptiSassMetricsFlushData)
#define GPUFL_CUPTI_PC_SAMPLING(X)     \
  X(cuptiPCSamplingEnable)             \
  X(cuptiPCSamplingDisable)            \
  X(cuptiPCSamplingStart)              \
  X(cuptiPCSamplingStop)               \
  X(cuptiPCSamplingGetData)            \
  X(cuptiPCSamplingGetNumStallReasons) \
  X(cuptiPCSamplingGetStallReasons)    \
  X(cuptiPCSamplingSetConfigurationAttribute)
#define GPUFL_CUPTI_RANGE_PROFILER(X)             \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerPushRange)                  \
  X(cuptiRangeProfilerPopRange)                   \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)         \
  X(cuptiRangeProfilerCounterDataGetRangeInfo)
#define GPUFL_CUPTI_FUNCTIONS(X) \
  GPUFL_CUPTI_TRACING(X)         \
  GPUFL_CUPTI_OPTIONAL(X)        \
  GPUFL_CUPTI_PROFILER(X)        \
  GPUFL_CUPTI_SASS_METRICS(X)    \
  GPUFL_CUPTI_PC_SAMPLING(X)     \
  GPUFL_CUPTI_RANGE_PROFILER(X)

namespace gpufl::cuda {

// What a part of gpufl needs from libcupti. Optional functions (error messages, cubin CRC/line
// info) are used when present and needed by no feature.
enum class CuptiFeature { Tracing, SassMetrics, PcSampling, RangeProfiler };

// The loaded library: one function pointer per name in GPUFL_CUPTI_FUNCTIONS (nullptr when absent).
struct CuptiLibrary {
#define GPUFL_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  GPUFL_CUPTI_FUNCTIONS(GPUFL_CUPTI_MEMBER)
#undef GPUFL_CUPTI_MEMBER

  void* handle = nullptr;            // dlopen handle; nullptr when not found
  std::string path;                  // what was loaded (file or soname as dlopen'ed)
  std::string file;                  // absolute path of the mapped file ("" when unknown)
  std::string error;                 // why libcupti is not loaded ("" when it is)
  std::vector<std::string> missing;  // functions of the list the library lacks
  uint32_t version = 0;              // cuptiGetVersion (0 when unknown)

  bool loaded() const {
    return handle != nullptr;
  }
  // Whether every function `feature` needs resolved; otherwise `why` (may be null) says what is
  // wrong: the load error, or "libcupti too old: cuptiSassMetricsSetConfig missing
  // (/path/libcupti.so.13)".
  bool has(CuptiFeature feature, std::string* why) const;
};

// The process's libcupti, loaded on first use; later calls return the same table. Thread-safe.
const CuptiLibrary& cuptiLibrary();

// Loads afresh, following the search order above with the current environment (cuptiLibrary() calls
// it once). `reuse_loaded` false skips step 0, for tests of the search itself.
CuptiLibrary loadCuptiLibrary(bool reuse_loaded = true);

// Steps 1-5 above as a list, for an environment and the directory of gpufl's own object: a pure
// function of its inputs and of which directories exist, so tests check the order on fake trees.
using CuptiGetEnv = std::function<const char*(const char* name)>;
struct CuptiSearchPlan {
  std::string explicit_file;        // $GPUFL_CUPTI_LIB: when set, the only file tried
  std::vector<std::string> files;   // otherwise every file to try, in order
  std::vector<std::string> absent;  // searched directories that do not exist (for the error)
};
CuptiSearchPlan cuptiSearchPlan(const CuptiGetEnv& getenv, const std::string& own_directory);

// The directory of the object this code lives in (libgpufl.so, the Python extension, or a test
// binary): step 5's base.
std::string cuptiOwnDirectory();

}  // namespace gpufl::cuda
