// Which deep engine a session runs. The one engine enum of GPU Flight: InitOptions takes it,
// session_start records it by name (docs/log-format.md), the report reads it back.
#pragma once

namespace gpufl {

enum class ProfilingEngine {
  None,                // kernels, copies, scopes, system metrics
  PcSampling,          // + warp stall reasons per PC
  SassMetrics,         // + per-instruction counters: divergence, memory coalescing
  PcSamplingWithSass,  // both of the above in one run
  RangeProfiler,       // + hardware counters per scope
};

}  // namespace gpufl
