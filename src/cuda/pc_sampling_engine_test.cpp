#include "cuda/pc_sampling_engine.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace gpufl::cuda {
namespace {

TEST(PcSampleAggregator, CountsPerFunctionPcAndReason) {
  PcSampleAggregator agg;
  agg.add(7, "rowK", 0x2a0, "long_scoreboard", 10);
  agg.add(7, "rowK", 0x2a0, "long_scoreboard", 5);
  agg.add(7, "rowK", 0x2a0, "long_scoreboard_not_issued", 3);  // distinct from its twin
  agg.add(7, "rowK", 0x2c0, "wait", 1);
  agg.add(7, "rowK", 0x2c0, "", 100);    // bookkeeping counter: not a reason
  agg.add(7, "rowK", 0x2c0, "wait", 0);  // nothing sampled
  auto rows = agg.take();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].function, "rowK");
  EXPECT_EQ(rows[0].crc, 7u);
  EXPECT_EQ(rows[0].pc, 0x2a0u);
  EXPECT_EQ(rows[0].stall, "long_scoreboard");
  EXPECT_EQ(rows[0].count, 15u);
  EXPECT_EQ(rows[1].stall, "long_scoreboard_not_issued");
  EXPECT_EQ(rows[1].count, 3u);
  EXPECT_EQ(rows[2].stall, "wait");
  EXPECT_EQ(agg.rows(), 0u);
  EXPECT_TRUE(agg.take().empty());
}

TEST(PatchedSamples, KeptOnlyForFunctionsWithoutCleanSamples) {
  PatchedSamples patched;
  patched.add(7, "once", 0x10, "wait", 40);  // launched once: its patched samples are all it has
  patched.add(7, "once", 0x20, "long_scoreboard", 2);
  patched.add(7, "often", 0x10, "wait", 30);  // launched again and sampled clean
  patched.add(7, "often", 0x30, "wait", 5);
  patched.add(7, "also_often", 0x10, "wait", 1);
  patched.sawClean("often");
  patched.sawClean("often");
  patched.sawClean("also_often");
  patched.sawClean("never_patched");
  PatchedSamples::Result r = patched.take();
  ASSERT_EQ(r.kept.size(), 2u);
  EXPECT_EQ(r.kept[0].function, "once");
  EXPECT_EQ(r.kept[0].count + r.kept[1].count, 42u);
  EXPECT_EQ(r.kept_functions, std::vector<std::string>{"once"});
  EXPECT_EQ(r.left_out_samples, 36u);
  EXPECT_EQ(r.left_out_functions, 2u);
  EXPECT_TRUE(patched.take().kept.empty());  // taken once
}

TEST(PcSamplingOptions, PresetsBoundedBuffersAndOverrides) {
  unsetenv("GPUFL_PC_SAMPLING_PERIOD");
  unsetenv("GPUFL_PC_SAMPLING_HW_BUFFER_MB");
  PcSamplingOptions deep = PcSamplingOptions::fromEnv(false);
  PcSamplingOptions light = PcSamplingOptions::fromEnv(true);
  EXPECT_EQ(deep.period, 12u);
  EXPECT_EQ(light.period, 16u);
  EXPECT_LT(deep.hardware_buffer_bytes, size_t{512} << 20);  // never CUPTI's 512 MB default
  EXPECT_GT(deep.hardware_buffer_bytes, 0u);
  setenv("GPUFL_PC_SAMPLING_PERIOD", "40", 1);
  EXPECT_EQ(PcSamplingOptions::fromEnv(false).period, 31u);  // CUPTI's range is 5..31
  setenv("GPUFL_PC_SAMPLING_PERIOD", "2", 1);
  EXPECT_EQ(PcSamplingOptions::fromEnv(false).period, 5u);
  setenv("GPUFL_PC_SAMPLING_PERIOD", "junk", 1);
  EXPECT_EQ(PcSamplingOptions::fromEnv(false).period, 12u);
  setenv("GPUFL_PC_SAMPLING_HW_BUFFER_MB", "16", 1);
  EXPECT_EQ(PcSamplingOptions::fromEnv(false).hardware_buffer_bytes, size_t{16} << 20);
  unsetenv("GPUFL_PC_SAMPLING_PERIOD");
  unsetenv("GPUFL_PC_SAMPLING_HW_BUFFER_MB");
}

TEST(PcSamplingEngine, StartFailsCleanlyWithoutAGpu) {
  // No driver in the context (EngineContext::driver null): the engine has no GPU, on any machine.
  std::vector<std::string> notes;
  EngineContext ctx;
  ctx.note = [&](const std::string& f, const std::string& s, const std::string& r) {
    notes.push_back(f + " " + s + ": " + r);
  };
  PcSamplingEngine engine(nullptr, nullptr, PcSamplingOptions{});
  EXPECT_FALSE(engine.needsSerializedKernelActivity());
  EXPECT_FALSE(engine.start(ctx));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("pc_sampling off: ", 0), 0u) << notes[0];
  LaunchSite site;
  site.correlation_id = 3;
  engine.onLaunchEnter(site);
  EXPECT_FALSE(engine.wasInstrumented(3));
  engine.stop();
}

}  // namespace
}  // namespace gpufl::cuda
