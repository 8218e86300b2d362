// The built-in collectors, registered explicitly: the system collector (NVML + /proc, this folder)
// and, when the CUDA backend is built (GPUFL_RUNTIME_HAVE_CUDA, set by src/runtime/CMakeLists.txt
// when target gpufl_cuda exists), the CUDA collector. Factories are looked up by these names; they
// appear in a note when a factory throws.
#include <string>

#include "runtime/collector_registry.hpp"
#include "runtime/system_collector.hpp"
#if GPUFL_RUNTIME_HAVE_CUDA
#include "cuda/cuda_collector.hpp"
#endif

namespace gpufl::runtime {

void registerBuiltinCollectors(void (*add)(std::string, core::CollectorFactory)) {
  // The names are those the generated registration used before the system collector moved from
  // src/host: kept so that notes do not change.
  add("gpufl::host::makeSystemCollector", core::CollectorFactory(&makeSystemCollector));
#if GPUFL_RUNTIME_HAVE_CUDA
  add("gpufl::cuda::makeCollector", core::CollectorFactory(&cuda::makeCollector));
#endif
}

}  // namespace gpufl::runtime
