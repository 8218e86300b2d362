#include "cuda/sass_metrics_engine.hpp"

#include <gtest/gtest.h>

namespace gpufl::cuda {
namespace {

using Row = SassAggregator::Row;

TEST(SassAggregator, SumsPerPcAcrossFlushesAndCountsLaunches) {
  SassAggregator agg;
  // Two launches of rowK flushed together, as CUPTI reports them: one record per (PC, metric).
  agg.countLaunch("rowK");
  agg.countLaunch("rowK");
  agg.add(0xf7cf753a, "rowK", 0x2a0, SassCounter::Inst, 2 * 262144);
  agg.add(0xf7cf753a, "rowK", 0x2a0, SassCounter::ThreadInst, 2 * 262144 * 32);
  agg.add(0xf7cf753a, "rowK", 0x2a0, SassCounter::Sectors, 2 * 262144 * 32);
  agg.add(0xf7cf753a, "rowK", 0x2a0, SassCounter::SectorsIdeal, 2 * 262144 * 4);
  agg.add(0xf7cf753a, "rowK", 0x10, SassCounter::Inst, 0);  // patched, never executed
  agg.markFlushed();
  auto rows = agg.take({});
  ASSERT_EQ(rows.size(), 1u);  // the never-executed instruction is dropped
  EXPECT_EQ(rows[0].second, 2u);
  const Row& r = rows[0].first;
  EXPECT_EQ(r.function, "rowK");
  EXPECT_EQ(r.pc, 0x2a0u);
  EXPECT_EQ(r.crc, 0xf7cf753au);
  EXPECT_EQ(r.get(SassCounter::Sectors), 16777216u);
  EXPECT_EQ(r.get(SassCounter::SectorsIdeal), 2097152u);
  EXPECT_EQ(agg.rows(), 0u);
}

TEST(SassAggregator, TakesOnlyFinishedAndFlushedFunctions) {
  SassAggregator agg;
  agg.countLaunch("a");
  agg.add(1, "a", 0, SassCounter::Inst, 5);
  agg.countLaunch("b");
  agg.add(1, "b", 0, SassCounter::Inst, 7);
  agg.markFlushed();
  agg.countLaunch("a");  // a third-party launch of a after the flush: its data is still in CUPTI
  auto done_all = [](const std::string&) { return true; };
  auto rows = agg.take(done_all);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].first.function, "b");
  EXPECT_EQ(rows[0].second, 1u);
  agg.add(1, "a", 0, SassCounter::Inst, 5);
  agg.markFlushed();
  rows = agg.take([](const std::string& f) { return f != "a"; });  // a may still get SASS launches
  EXPECT_TRUE(rows.empty());
  rows = agg.take(done_all);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].first.get(SassCounter::Inst), 10u);
  EXPECT_EQ(rows[0].second, 2u);
  // A later set of rows for "a" counts its own launches from zero.
  agg.countLaunch("a");
  agg.add(1, "a", 0, SassCounter::Inst, 1);
  agg.markFlushed();
  rows = agg.take({});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].second, 1u);
}

TEST(SassAggregator, SameFunctionInTwoCubinsStaysApart) {
  SassAggregator agg;
  agg.countLaunch("k");
  agg.add(1, "k", 16, SassCounter::Inst, 1);
  agg.add(2, "k", 16, SassCounter::Inst, 1);
  agg.markFlushed();
  EXPECT_EQ(agg.take({}).size(), 2u);
}

TEST(SassMetricPlan, PrefersHardwareIdealSectors) {
  // The metrics GH100 listed on the H200 that matter here (60 in all).
  SassMetricPlan plan =
      planSassMetrics({"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed",
                       "smsp__sass_sectors_mem_global", "smsp__sass_sectors_mem_global_ideal",
                       "smsp__sass_thread_inst_executed_pred_on"});
  EXPECT_TRUE(plan.problem.empty());
  EXPECT_TRUE(plan.ideal_from_hardware);
  EXPECT_EQ(plan.metrics.size(), 4u);
  EXPECT_EQ(plan.metrics.count(SassCounter::ThreadInstPredOn), 0u);  // not needed: not configured
}

TEST(SassMetricPlan, EstimatesIdealWhenTheChipLacksIt) {
  SassMetricPlan plan =
      planSassMetrics({"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed",
                       "smsp__sass_sectors_mem_global", "smsp__sass_thread_inst_executed_pred_on"});
  EXPECT_TRUE(plan.problem.empty());
  EXPECT_FALSE(plan.ideal_from_hardware);
  EXPECT_EQ(plan.metrics.at(SassCounter::ThreadInstPredOn),
            "smsp__sass_thread_inst_executed_pred_on");
}

TEST(SassMetricPlan, RequiredMetricMissing) {
  SassMetricPlan plan = planSassMetrics({"smsp__sass_inst_executed"});
  EXPECT_NE(plan.problem.find("smsp__sass_thread_inst_executed"), std::string::npos);
}

struct Notes {
  std::vector<std::tuple<std::string, std::string, std::string>> list;
  EngineContext context() {
    EngineContext ctx;
    ctx.engine = ProfilingEngine::SassMetrics;
    ctx.note = [this](const std::string& f, const std::string& s, const std::string& r) {
      list.emplace_back(f, s, r);
    };
    ctx.now_ns = [] { return int64_t{0}; };
    return ctx;
  }
};

TEST(SassMetricsEngine, StartFailsCleanlyWithoutAGpu) {
  // No driver in the context (EngineContext::driver null): the engine has no GPU, on any machine.
  Notes notes;
  auto scheduler = std::make_shared<LaunchScheduler>(5, LaunchScheduler::Mode::Both);
  auto cubins = std::make_shared<CubinStore>(1 << 20, CubinStore::Hooks{});
  SassMetricsEngine engine(scheduler, cubins);
  EXPECT_TRUE(engine.needsSerializedKernelActivity());
  EXPECT_FALSE(engine.start(notes.context()));
  ASSERT_EQ(notes.list.size(), 1u);
  EXPECT_EQ(std::get<0>(notes.list[0]), "sass_metrics");
  EXPECT_EQ(std::get<1>(notes.list[0]), "off");
  EXPECT_FALSE(std::get<2>(notes.list[0]).empty());
  // Hooks after a failed start are harmless.
  LaunchSite site;
  site.symbol = "k";
  site.correlation_id = 1;
  engine.onContextCreated(nullptr, 0);
  engine.onLaunchEnter(site);
  engine.onLaunchExit(site);
  EXPECT_FALSE(engine.wasInstrumented(1));
  EXPECT_EQ(scheduler->launches("k"), 0u);
  engine.stop();
}

}  // namespace
}  // namespace gpufl::cuda
