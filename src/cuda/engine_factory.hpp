// The deep engines a profiling engine choice runs, built for the tracer (CuptiTracer::start).
//
//   None                -> none
//   SassMetrics         -> SassMetricsEngine
//   PcSampling          -> PcSamplingEngine (deep preset; GPUFL_PC_SAMPLING_PRESET=light for
//                          always-on: period 2^16, no cubins kept, so no SASS text)
//   PcSamplingWithSass  -> SassMetricsEngine + PcSamplingEngine, sharing one LaunchScheduler and
//                          one CubinStore. Alternate mode (default): both on each function's first
//                          launch (a kernel launched once has both), then SASS metrics on the odd
//                          launches among the first N and PC sampling on all others, because
//                          samples of SASS-patched code are biased (measured on the H200); the
//                          first launch's samples count only for kernels without clean ones.
//                          GPUFL_DEEP_COMBINE=both puts both on the same launches (CUPTI allows it
//                          on sm_90).
//   RangeProfiler       -> RangeProfilerEngine
#pragma once

#include <memory>
#include <vector>

#include "cuda/deep_engine.hpp"
#include "gpufl/gpufl.hpp"

namespace gpufl::cuda {

struct DeepOptions {
  int deep_launches_per_kernel = 5;     // SASS metrics on the first N launches of each function
  bool alternate = true;                // PcSamplingWithSass: alternate instead of sharing launches
  bool light_pc_sampling = false;       // PC sampling light preset
  size_t max_cubin_bytes = 256u << 20;  // cubins kept for SASS text / source lines
  // Reads GPUFL_DEEP_COMBINE, GPUFL_PC_SAMPLING_PRESET, GPUFL_CUBIN_BUDGET_MB.
  static DeepOptions fromEnv(int deep_launches_per_kernel);
};

std::vector<std::unique_ptr<DeepEngine>> makeEngines(ProfilingEngine engine,
                                                     const DeepOptions& options);
// Same, with DeepOptions::fromEnv(5).
std::vector<std::unique_ptr<DeepEngine>> makeEngines(ProfilingEngine engine);

}  // namespace gpufl::cuda
