#include "monitor/app_activity.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <sstream>

#include "log/reader.hpp"
#include "monitor/monitor_test_util.hpp"

namespace gpufl::monitor {
namespace {

using testing::TempDir;

const std::string kTorch = std::string(GPUFL_TEST_DATA_DIR) + "/h200/pytorch_train_trace";
constexpr const char* kTorchGpu = "GPU-8d0165ca-f959-839b-4041-4f3046c6b511";

// What the log reader (its own decoder, kernel chains and all) finds in a fixture.
struct KernelTotals : EventVisitor {
  uint64_t kernels = 0, ns = 0;
  void onKernel(const KernelEvent& k) override {
    ++kernels;
    ns += static_cast<uint64_t>(k.end_ns - k.start_ns);
  }
};

KernelTotals readerTotals(const std::string& prefix) {
  KernelTotals t;
  log::ReadResult r = log::readPrefix(prefix, {}, t);
  EXPECT_EQ(r.warning_count, 0u);
  return t;
}

std::string fileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

TEST(AppActivity, CountsKernelsAndGpuTimeOfALiveLogAsItGrows) {
  const KernelTotals want = readerTotals(kTorch);
  ASSERT_GT(want.kernels, 2000u);
  const std::string text = fileText(kTorch + ".device.log");
  const size_t cut = text.size() / 2 + 17;  // mid-line: the partial line waits for its end
  TempDir dir;
  const std::string live = dir.path("torch.device.log");
  append(live, text.substr(0, cut));
  AppActivity apps({dir.path("")});
  apps.poll(1);
  std::vector<AppSeries> half = apps.series();
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(half[0].app, "python3");
  EXPECT_EQ(half[0].pid, 1968);
  EXPECT_EQ(half[0].sid, "4d6225a6");
  EXPECT_EQ(half[0].uuid, kTorchGpu);
  size_t complete_kernels = 0;
  const std::string first = text.substr(0, text.rfind('\n', cut) + 1);
  for (size_t p = 0; (p = first.find("\"type\":\"kernel_event\"", p)) != std::string::npos; ++p)
    ++complete_kernels;
  EXPECT_EQ(half[0].kernels, complete_kernels);

  append(live, text.substr(cut));
  apps.poll(2);
  std::vector<AppSeries> all = apps.series();
  ASSERT_EQ(all.size(), 1u);  // still shown: it ended while watched
  EXPECT_EQ(all[0].kernels, want.kernels);
  EXPECT_EQ(all[0].kernel_ns, want.ns);

  apps.poll(2 + 61'000'000'000);  // a minute after its end: forgotten
  EXPECT_TRUE(apps.series().empty());
  EXPECT_TRUE(apps.takeIssues().empty());
}

TEST(AppActivity, FollowsRotation) {
  const KernelTotals want = readerTotals(kTorch);
  const std::string text = fileText(kTorch + ".device.log");
  const size_t cut = text.find('\n', text.size() / 3) + 1;
  TempDir dir;
  const std::string live = dir.path("torch.device.log");
  append(live, text.substr(0, cut));
  AppActivity apps({dir.path("")});
  apps.poll(1);
  // The writer rotates: the active file becomes segment 1, a new active file continues the session.
  ASSERT_EQ(std::rename(live.c_str(), dir.path("torch.device.000001.log").c_str()), 0);
  append(live, text.substr(cut));
  apps.poll(2);
  std::vector<AppSeries> all = apps.series();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kernels, want.kernels);
  EXPECT_EQ(all[0].kernel_ns, want.ns);
  EXPECT_EQ(all[0].uuid, kTorchGpu);
}

TEST(AppActivity, SmallChunksGiveTheSameCounts) {
  const KernelTotals want = readerTotals(kTorch);
  const std::string text = fileText(kTorch + ".device.log");
  TempDir dir;
  append(dir.path("torch.device.log"), text.substr(0, text.size() - 10));  // not yet ended
  AppActivity apps({dir.path("")}, 60'000'000'000, /*chunk_bytes=*/997);  // lines cross every chunk
  apps.poll(1);
  append(dir.path("torch.device.log"), text.substr(text.size() - 10));
  apps.poll(2);
  std::vector<AppSeries> all = apps.series();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kernels, want.kernels);
  EXPECT_EQ(all[0].kernel_ns, want.ns);
}

TEST(AppActivity, SessionsThatEndedBeforeTheFirstLookAreNotShown) {
  TempDir dir;
  append(dir.path("zoo.device.log"),
         fileText(std::string(GPUFL_TEST_DATA_DIR) + "/h200/kernel_zoo_trace.device.log"));
  AppActivity apps({dir.path("")});
  apps.poll(1);
  EXPECT_TRUE(apps.series().empty());
}

TEST(AppActivity, GarbageAndUnknownDirectories) {
  TempDir dir;
  append(dir.path("junk.device.log"),
         "not json\n{\"type\":\"kernel_event\"}\n{\"type\":\"session_start\",\"sid\":\"abcd1234\","
         "\"app\":\"x\",\"pid\":7}\n{\"type\":\"kernel_event\",\"sid\":\"abcd1234\",\"k\":1,"
         "\"dur_ns\":1000}\n{\"type\":\"kernel_event\",\"sid\":\"abcd1234\",\"k\":\"one\"}\n");
  AppActivity apps({dir.path(""), dir.path("missing")});
  apps.poll(1);
  std::vector<AppSeries> s = apps.series();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].app, "x");
  EXPECT_EQ(s[0].kernels, 1u);  // the unreadable lines are skipped
  EXPECT_EQ(s[0].uuid, "");     // no kernel_def: the GPU is unknown
  std::vector<std::string> issues = apps.takeIssues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].rfind(dir.path("missing") + ": cannot list", 0), 0u) << issues[0];
  apps.poll(2);
  EXPECT_TRUE(apps.takeIssues().empty());  // reported once
}

// A FIFO (or any non-regular file) named like a log is skipped without blocking: open() of a FIFO
// waits for a writer unless O_NONBLOCK. Bounded: a poll that blocks is released by opening the
// FIFO for writing, and the test fails instead of hanging.
TEST(AppActivity, AFifoNamedLikeALogDoesNotBlockThePoll) {
  TempDir dir;
  const std::string fifo = dir.path("x.device.log");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::mkdir(dir.path("d.device.log").c_str(), 0700), 0);
  append(dir.path("ok.device.log"),
         "{\"type\":\"session_start\",\"sid\":\"abcd1234\",\"app\":\"x\",\"pid\":7}\n"
         "{\"type\":\"kernel_event\",\"sid\":\"abcd1234\",\"k\":1,\"dur_ns\":1000}\n");
  AppActivity apps({dir.path("")});
  auto polled = std::async(std::launch::async, [&] {
    apps.poll(1);
    apps.poll(2);
  });
  if (polled.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "poll() blocked on a FIFO";
    int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // releases the blocked open()
    polled.wait();
    if (w >= 0) ::close(w);
    return;
  }
  std::vector<AppSeries> s = apps.series();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kernels, 1u);
}

TEST(AppActivity, TheLatestHealthRecordOfEachSessionIsKept) {
  TempDir dir;
  const std::string live = dir.path("job.device.log");
  append(
      live,
      R"({"type":"session_start","sid":"5e55e55e","session_id":"5e55e55e-0000-4000-8000-000000000000","app":"job","pid":31,"start_ns":1,"start_unix_ns":2})"
      "\n"
      R"({"type":"health","sid":"5e55e55e","ts_ns":10,"cpu_ns":{"writer":5,"cupti":7},"records":100,"checked":90,"violations":{"zero_time":2},"dropped":{"activity":0}})"
      "\n");
  AppActivity apps({dir.path("")});
  apps.poll(1);
  ASSERT_EQ(apps.health().size(), 1u);
  append(
      live,
      R"({"type":"health","sid":"5e55e55e","ts_ns":20,"cpu_ns":{"writer":50,"cupti":70},"rss_bytes":4096,"buffer_bytes":1024,"records":200,"checked":180,"violations":{"zero_time":3},"dropped":{"activity":4},"clock_drift_ns":-9,"step_down":["deep_engines_paused"]})"
      "\n");
  apps.poll(2);
  const std::vector<AppHealth> h = apps.health();
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].app, "job");
  EXPECT_EQ(h[0].pid, 31);
  EXPECT_EQ(h[0].sid, "5e55e55e");
  EXPECT_EQ(h[0].cpu_ns, (std::map<std::string, uint64_t>{{"cupti", 70}, {"writer", 50}}));
  EXPECT_EQ(h[0].records, 200u);
  EXPECT_EQ(h[0].checked, 180u);
  EXPECT_EQ(h[0].violations.at("zero_time"), 3u);
  EXPECT_EQ(h[0].dropped.at("activity"), 4u);
  EXPECT_EQ(h[0].rss_bytes, 4096u);
  EXPECT_EQ(h[0].buffer_bytes, 1024u);
  EXPECT_TRUE(h[0].has_clock);
  EXPECT_EQ(h[0].clock_drift_ns, -9);
  EXPECT_EQ(h[0].step_downs, 1u);
  EXPECT_EQ(apps.series().size(), 0u);  // no kernels yet
}

}  // namespace
}  // namespace gpufl::monitor
