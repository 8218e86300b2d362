#include "cuda/engine_factory.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "cuda/deep_support.hpp"

namespace gpufl::cuda {
namespace {

std::vector<std::string> names(const std::vector<std::unique_ptr<DeepEngine>>& engines) {
  std::vector<std::string> out;
  for (const auto& e : engines) out.push_back(e->name());
  return out;
}

TEST(EngineFactory, EnginesPerProfilingEngine) {
  DeepOptions o;
  EXPECT_TRUE(makeEngines(ProfilingEngine::None, o).empty());
  EXPECT_EQ(names(makeEngines(ProfilingEngine::SassMetrics, o)),
            std::vector<std::string>{"sass_metrics"});
  EXPECT_EQ(names(makeEngines(ProfilingEngine::PcSampling, o)),
            std::vector<std::string>{"pc_sampling"});
  EXPECT_EQ(names(makeEngines(ProfilingEngine::PcSamplingWithSass, o)),
            (std::vector<std::string>{"sass_metrics", "pc_sampling"}));
  EXPECT_EQ(names(makeEngines(ProfilingEngine::RangeProfiler, o)),
            std::vector<std::string>{"range_profiler"});
}

// The light preset keeps no cubins (no SASS text, no nvdisasm); the deep preset and SASS do.
TEST(EngineFactory, LightPcSamplingKeepsNoCubins) {
  DeepOptions light;
  light.light_pc_sampling = true;
  auto engines = makeEngines(ProfilingEngine::PcSampling, light);
  ASSERT_EQ(engines.size(), 1u);
  EXPECT_EQ(engines[0]->workDetails(), "");
  EXPECT_NE(makeEngines(ProfilingEngine::PcSampling, DeepOptions{})[0]->workDetails(), "");
  for (const auto& e : makeEngines(ProfilingEngine::PcSamplingWithSass, light))
    EXPECT_NE(e->workDetails(), "") << e->name();  // SASS metrics need the cubins
}

TEST(EngineFactory, SassNeedsSerializedKernelActivity) {
  DeepOptions o;
  auto any = [](const std::vector<std::unique_ptr<DeepEngine>>& engines) {
    bool serial = false;
    for (const auto& e : engines) serial = serial || e->needsSerializedKernelActivity();
    return serial;
  };
  EXPECT_TRUE(any(makeEngines(ProfilingEngine::SassMetrics, o)));
  EXPECT_TRUE(any(makeEngines(ProfilingEngine::PcSamplingWithSass, o)));
  EXPECT_FALSE(any(makeEngines(ProfilingEngine::PcSampling, o)));
  EXPECT_FALSE(any(makeEngines(ProfilingEngine::RangeProfiler, o)));
}

TEST(EngineFactory, OptionsFromEnvironment) {
  setenv("GPUFL_DEEP_COMBINE", "both", 1);
  setenv("GPUFL_PC_SAMPLING_PRESET", "light", 1);
  setenv("GPUFL_CUBIN_BUDGET_MB", "32", 1);
  DeepOptions o = DeepOptions::fromEnv(3);
  EXPECT_EQ(o.deep_launches_per_kernel, 3);
  EXPECT_FALSE(o.alternate);
  EXPECT_TRUE(o.light_pc_sampling);
  EXPECT_EQ(o.max_cubin_bytes, size_t{32} << 20);
  unsetenv("GPUFL_DEEP_COMBINE");
  unsetenv("GPUFL_PC_SAMPLING_PRESET");
  unsetenv("GPUFL_CUBIN_BUDGET_MB");
  EXPECT_TRUE(DeepOptions::fromEnv(5).alternate);  // default: samples of patched code are biased
}

// On a machine without a GPU every engine's start() fails with one note and no crash.
TEST(EngineFactory, EveryEngineFailsCleanlyWithoutAGpu) {
  // No driver in the context (EngineContext::driver null): the engine has no GPU, on any machine.
  for (ProfilingEngine pe : {ProfilingEngine::SassMetrics, ProfilingEngine::PcSampling,
                             ProfilingEngine::PcSamplingWithSass, ProfilingEngine::RangeProfiler}) {
    int notes = 0;
    EngineContext ctx;
    ctx.engine = pe;
    ctx.note = [&](const std::string&, const std::string& status, const std::string&) {
      EXPECT_EQ(status, "off");
      ++notes;
    };
    auto engines = makeEngines(pe, DeepOptions{});
    for (auto& e : engines) {
      EXPECT_FALSE(e->start(ctx)) << e->name();
      e->stop();
    }
    EXPECT_EQ(notes, static_cast<int>(engines.size()));
  }
}

}  // namespace
}  // namespace gpufl::cuda
