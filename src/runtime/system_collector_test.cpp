#include "runtime/system_collector.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

namespace gpufl::runtime {
namespace {

using namespace std::chrono_literals;

// A session as the collector sees it: records notes, nothing else.
class FakeContext : public core::SessionContext {
 public:
  const std::string& sessionId() const override { return id_; }
  const std::string& sid() const override { return sid_; }
  const InitOptions& options() const override { return options_; }
  Engine engine() const override { return Engine::None; }
  int64_t startNs() const override { return 0; }
  ClockFn clock() const override { return nullptr; }
  void addNote(std::string_view feature, std::string_view status,
               std::string_view reason) override {
    std::lock_guard lock(mu_);
    notes_.push_back(std::string(feature) + " " + std::string(status) + ": " + std::string(reason));
  }
  void addDevice(const DeviceInfo&) override {}
  void requestDrain() override {}

  std::vector<std::string> notes() {
    std::lock_guard lock(mu_);
    return notes_;
  }

 private:
  std::string id_ = "0123abcd-0000-4000-8000-000000000000", sid_ = "0123abcd";
  InitOptions options_;
  std::mutex mu_;
  std::vector<std::string> notes_;
};

struct Collected : EventVisitor {
  std::vector<GpuSample> gpu;
  std::vector<HostSample> host;
  void onGpuSample(const GpuSample& s) override { gpu.push_back(s); }
  void onHostSample(const HostSample& s) override { host.push_back(s); }
};

SystemCollectorConfig fixtureConfig() {
  SystemCollectorConfig c;
  c.period = 2ms;
  c.proc_root = std::string(GPUFL_TEST_DATA_DIR) + "/proc/basic_t0";
  c.nvml_library = "libnvidia-ml-gpufl-test-missing.so.1";
  return c;
}

TEST(SystemCollector, HostSamplesWithoutNvml) {
  FakeContext ctx;
  SystemCollector collector(fixtureConfig());
  ASSERT_TRUE(collector.start(ctx));
  Collected out;
  for (int i = 0; i < 2000 && out.host.size() < 3; ++i) {
    collector.drain(out);
    std::this_thread::sleep_for(1ms);
  }
  collector.stop();
  collector.drain(out);
  ASSERT_GE(out.host.size(), 3u);
  EXPECT_TRUE(out.gpu.empty());
  const HostSample& s = out.host.front();
  EXPECT_EQ(s.sid, "0123abcd");
  EXPECT_EQ(s.ram_total_bytes, 16'000'000ull * 1024);
  EXPECT_EQ(s.proc_rss_bytes, 204'800ull * 1024);
  // The fixture does not change between samples: no time passed on its CPU counters, so no rate.
  EXPECT_FALSE(s.cpu_pct.has_value());
  auto notes = ctx.notes();
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0],
            "nvml off: NVML not available (libnvidia-ml-gpufl-test-missing.so.1 not found: no "
            "NVIDIA driver "
            "installed?)");

  SessionEnd end;
  collector.finish(end);
  EXPECT_EQ(end.dropped["system"], 0u);
  EXPECT_GT(end.overhead_ns["system_sampler"], 0u);
}

TEST(SystemCollector, RealProcGivesCpuRates) {
  FakeContext ctx;
  SystemCollectorConfig c = fixtureConfig();
  c.proc_root = "/";
  c.period = 20ms;
  SystemCollector collector(c);
  ASSERT_TRUE(collector.start(ctx));
  Collected out;
  for (int i = 0; i < 500 && out.host.empty(); ++i) {
    collector.drain(out);
    std::this_thread::sleep_for(5ms);
  }
  collector.stop();
  ASSERT_FALSE(out.host.empty());
  EXPECT_TRUE(out.host.front().ram_used_bytes.has_value());
  EXPECT_TRUE(out.host.front().proc_rss_bytes.has_value());
}

TEST(SystemCollector, MissingProcIsANoteNotACrash) {
  FakeContext ctx;
  SystemCollectorConfig c = fixtureConfig();
  c.proc_root = std::string(GPUFL_TEST_DATA_DIR) + "/proc/does_not_exist";
  SystemCollector collector(c);
  ASSERT_TRUE(collector.start(ctx));
  std::this_thread::sleep_for(20ms);
  collector.stop();
  auto notes = ctx.notes();
  ASSERT_EQ(notes.size(), 5u);  // nvml off + one per host field, once each
  EXPECT_EQ(notes[1], "host_sampling degraded: cpu: /proc/stat: No such file or directory");
}

TEST(SystemCollector, PausedSamplerWritesNothingUntilResumed) {
  FakeContext ctx;
  SystemCollectorConfig c = fixtureConfig();
  c.start_paused = true;
  SystemCollector collector(c);
  ASSERT_TRUE(collector.start(ctx));
  std::this_thread::sleep_for(20ms);
  Collected out;
  collector.drain(out);
  EXPECT_TRUE(out.host.empty());
  collector.setSampling(true);
  for (int i = 0; i < 2000 && out.host.empty(); ++i) {
    collector.drain(out);
    std::this_thread::sleep_for(1ms);
  }
  collector.stop();
  EXPECT_FALSE(out.host.empty());
}

TEST(SystemCollector, FactoryHonoursRate) {
  InitOptions o;
  o.system_sample_rate_ms = 0;
  EXPECT_EQ(makeSystemCollector(o), nullptr);
  o.system_sample_rate_ms = 100;
  auto c = makeSystemCollector(o);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name(), "system");
}

}  // namespace
}  // namespace gpufl::runtime
