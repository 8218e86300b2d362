// The C++ harness's loop against a fake GPU: warm-up length, automatic repetitions, graph packing,
// L2 flushes, failures, and the record the session writes.
#include "runtime/bench_loop.hpp"

#include <gtest/gtest.h>

#include <deque>

#include "runtime/bench_record.hpp"
#include "runtime/session.hpp"

namespace gpufl::runtime {
namespace {

// Every call of the work takes `call_ns` on the "GPU", unless a scripted time is queued.
class FakeDevice final : public BenchDevice {
 public:
  double call_ns = 50e3;
  std::deque<double> script;  // times of the next timed() calls
  int timed_calls = 0, flushes = 0, captured_calls = 0, replays = 0;
  bool fail_capture = false;
  std::optional<int> clock = 1980;

  double timed(const std::function<void()>& work, std::string* error) override {
    work();
    ++timed_calls;
    if (!script.empty()) {
      const double t = script.front();
      script.pop_front();
      if (t < 0) *error = "CUDA_ERROR_LAUNCH_FAILED";
      return t;
    }
    return call_ns;
  }
  bool capture(const std::function<void()>& fn, int calls, std::string* error) override {
    if (fail_capture) {
      *error = "cuStreamBeginCapture failed";
      return false;
    }
    for (int i = 0; i < calls; ++i) fn();
    captured_calls = calls;
    return true;
  }
  double timedReplay(std::string*) override {
    ++replays;
    return call_ns * captured_calls + 3000;  // one launch's cost for the whole graph
  }
  bool flushL2(std::string*) override {
    ++flushes;
    return true;
  }
  double launchOverheadNs() override { return 4000; }
  std::optional<int> smClockMhz() override { return clock; }
  std::optional<int> smClockLimitMhz() override { return 1980; }
  double peakTflops(const std::string& dtype) override { return dtype == "bf16" ? 989 : 67; }
};

TEST(BenchLoop, WarmsUpForItsTimeThenFillsTheTargetWithRepetitions) {
  FakeDevice dev;
  int calls = 0;
  BenchOptions o;
  o.name = "gemm";
  o.dtype = "bf16";
  o.warmup_ms = 1;    // 1 ms of 50 us calls: 20 warm-up calls
  o.target_ms = 2.5;  // 50 timed repetitions
  o.flops = 2.0 * 1024 * 1024 * 1024;
  BenchmarkResult record;
  const BenchResult r = runBench(
      dev, [&] { ++calls; }, o, &record);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.warmup_reps, 20u);
  EXPECT_EQ(r.reps, 50u);
  EXPECT_EQ(calls, 70);
  EXPECT_EQ(r.method, "events");
  EXPECT_DOUBLE_EQ(r.median_ms, 0.05);
  EXPECT_NEAR(r.tflops, 2.0 * 1024 * 1024 * 1024 / 50e3 / 1e3, 1e-9);
  EXPECT_EQ(r.peak_tflops, 989);
  EXPECT_EQ(r.clk_sm_min_mhz, 1980);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  EXPECT_EQ(record.name, "gemm");
  EXPECT_EQ(record.median_ns, 50000);
}

TEST(BenchLoop, SlowFirstCallsAreWarmUpNotTiming) {
  FakeDevice dev;
  dev.script = {900e3, 400e3};  // lazy init and autotuning in the first two calls
  BenchOptions o;
  o.warmup_ms = 0;
  o.min_warmup_reps = 2;
  o.reps = 15;
  const BenchResult r = runBench(
      dev, [] {}, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_DOUBLE_EQ(r.max_ms, 0.05);
}

TEST(BenchLoop, TinyOperationsThroughGraphReplay) {
  FakeDevice dev;
  dev.call_ns = 2000;  // 2 us: below the 4 us launch floor
  BenchOptions o;
  o.warmup_ms = 0.1;
  o.reps = 20;
  const BenchResult events = runBench(
      dev, [] {}, o);
  ASSERT_TRUE(events.ok);
  ASSERT_FALSE(events.warnings.empty());
  EXPECT_NE(events.warnings[0].find("shorter than the launch overhead (4.00 us)"),
            std::string::npos);
  o.graph = true;
  const BenchResult graph = runBench(
      dev, [] {}, o);
  ASSERT_TRUE(graph.ok) << graph.error;
  EXPECT_EQ(dev.captured_calls, 100);  // 200 us of 2 us calls per replay
  EXPECT_EQ(graph.ops_per_rep, 100u);
  EXPECT_EQ(graph.method, "graph");
  EXPECT_EQ(dev.replays, 20);
  EXPECT_NEAR(graph.median_ms, (2000.0 * 100 + 3000) / 100 / 1e6, 1e-9);  // the launch amortised
  EXPECT_TRUE(graph.warnings.empty()) << graph.warnings[0];
}

TEST(BenchLoop, FlushesL2BeforeEveryRepetition) {
  FakeDevice dev;
  BenchOptions o;
  o.warmup_ms = 0;
  o.reps = 12;
  o.flush_l2 = true;
  const BenchResult r = runBench(
      dev, [] {}, o);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(dev.flushes, 12);
  EXPECT_TRUE(r.flush_l2);
}

TEST(BenchLoop, ADeviceFailureIsAnErrorNamingTheStep) {
  FakeDevice dev;
  dev.script = {50e3, 50e3, 50e3, -1};
  BenchOptions o;
  o.warmup_ms = 0;
  o.reps = 5;
  const BenchResult r = runBench(
      dev, [] {}, o);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "repetition 1: CUDA_ERROR_LAUNCH_FAILED");
  dev.fail_capture = true;
  o.graph = true;
  EXPECT_EQ(runBench(
                dev, [] {}, o)
                .error,
            "graph capture: cuStreamBeginCapture failed");
}

TEST(BenchLoop, WithoutAGpuBenchSaysWhy) {
  std::string why;
  if (makeCudaBenchDevice(nullptr, &why))
    GTEST_SKIP() << "a GPU is here: this test is for machines without one";
  const BenchResult r = bench([] {});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
}

struct Written : EventVisitor {
  std::vector<std::string> order;
  std::vector<BenchmarkResult> benchmarks;
  void onBenchmark(const BenchmarkResult& e) override {
    order.push_back("benchmark");
    benchmarks.push_back(e);
  }
  void onSessionEnd(const SessionEnd&) override { order.push_back("session_end"); }
};

TEST(BenchLoop, TheSessionWritesTheRecordBeforeItsEnd) {
  Written w;
  SessionConfig c;
  c.options.app_name = "bench_test";
  c.options.log_path = "/nonexistent/never-opened";
  c.sink = &w;
  auto session = Session::start(std::move(c), nullptr);
  ASSERT_TRUE(session);
  FakeDevice dev;
  BenchOptions o;
  o.name = "axpy";
  o.warmup_ms = 0;
  o.reps = 11;
  BenchmarkResult record;
  ASSERT_TRUE(runBench(
                  dev, [] {}, o, &record)
                  .ok);
  session->addBenchmark(record);
  session->stop();
  ASSERT_EQ(w.benchmarks.size(), 1u);
  EXPECT_EQ(w.order, (std::vector<std::string>{"benchmark", "session_end"}));
  EXPECT_EQ(w.benchmarks[0].name, "axpy");
  EXPECT_EQ(w.benchmarks[0].sid, session->sid());
  EXPECT_GT(w.benchmarks[0].ts_ns, 0);
  EXPECT_EQ(w.benchmarks[0].reps, 11u);
}

TEST(BenchLoop, PublicResultAndRecordConvertBothWays) {
  BenchmarkResult b;
  b.name = "n";
  b.median_ns = 1234567;
  b.p90_ns = 2000000;
  b.clk_sm_max_mhz = 1980;
  b.flush_l2 = true;
  b.device = 3;
  b.warnings = {"w"};
  const BenchResult r = publicResult(b);
  EXPECT_DOUBLE_EQ(r.median_ms, 1.234567);
  EXPECT_EQ(r.clk_sm_min_mhz, 0);  // not read
  const BenchmarkResult back = benchmarkRecord(r);
  EXPECT_EQ(back.median_ns, 1234567);
  EXPECT_EQ(back.p90_ns, 2000000);
  EXPECT_EQ(back.clk_sm_max_mhz, 1980);
  EXPECT_FALSE(back.clk_sm_min_mhz.has_value());
  EXPECT_TRUE(back.flush_l2);
  EXPECT_EQ(back.device, 3u);
  EXPECT_EQ(back.warnings, b.warnings);
}

}  // namespace
}  // namespace gpufl::runtime
