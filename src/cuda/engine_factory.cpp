#include "cuda/engine_factory.hpp"

#include <cstdlib>
#include <cstring>

#include "cuda/cubin_sass.hpp"
#include "cuda/deep_support.hpp"
#include "cuda/pc_sampling_engine.hpp"
#include "cuda/range_profiler_engine.hpp"
#include "cuda/sass_metrics_engine.hpp"

namespace gpufl::cuda {

DeepOptions DeepOptions::fromEnv(int deep_launches_per_kernel) {
  DeepOptions o;
  o.deep_launches_per_kernel = deep_launches_per_kernel;
  if (const char* v = std::getenv("GPUFL_DEEP_COMBINE")) o.alternate = std::strcmp(v, "both") != 0;
  if (const char* v = std::getenv("GPUFL_PC_SAMPLING_PRESET"))
    o.light_pc_sampling = std::strcmp(v, "light") == 0;
  if (const char* v = std::getenv("GPUFL_CUBIN_BUDGET_MB"))
    o.max_cubin_bytes = std::strtoull(v, nullptr, 10) << 20;
  return o;
}

std::vector<std::unique_ptr<DeepEngine>> makeEngines(ProfilingEngine engine,
                                                     const DeepOptions& options) {
  std::vector<std::unique_ptr<DeepEngine>> engines;
  const bool sass =
      engine == ProfilingEngine::SassMetrics || engine == ProfilingEngine::PcSamplingWithSass;
  const bool pc =
      engine == ProfilingEngine::PcSampling || engine == ProfilingEngine::PcSamplingWithSass;
  if (sass || pc) {
    const auto mode = (sass && pc && options.alternate) ? LaunchScheduler::Mode::Alternate
                                                        : LaunchScheduler::Mode::Both;
    auto scheduler = std::make_shared<LaunchScheduler>(options.deep_launches_per_kernel, mode);
    // The light PC sampling preset (always-on) keeps no cubins: hot PCs are offsets without SASS
    // text or source lines. On a PyTorch trace the cubins were 77 MB of copies at module load and
    // 1.4-1.6 s of nvdisasm before shutdown (H200, 2026-11-29), the larger part of the preset's
    // cost.
    const bool light_only = pc && !sass && options.light_pc_sampling;
    auto cubins = light_only ? nullptr
                             : std::make_shared<CubinStore>(options.max_cubin_bytes,
                                                            CubinStore::defaultHooks());
    if (sass) engines.push_back(std::make_unique<SassMetricsEngine>(scheduler, cubins));
    if (pc) {
      engines.push_back(std::make_unique<PcSamplingEngine>(
          scheduler, cubins, PcSamplingOptions::fromEnv(options.light_pc_sampling)));
    }
  }
  if (engine == ProfilingEngine::RangeProfiler)
    engines.push_back(std::make_unique<RangeProfilerEngine>());
  return engines;
}

std::vector<std::unique_ptr<DeepEngine>> makeEngines(ProfilingEngine engine) {
  return makeEngines(engine, DeepOptions::fromEnv(5));
}

}  // namespace gpufl::cuda
