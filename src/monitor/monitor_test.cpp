#include "monitor/monitor.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include "http/hostile_clients.hpp"
#include "log/reader.hpp"
#include "monitor/exposition.hpp"
#include "monitor/monitor_test_util.hpp"

namespace gpufl::monitor {
namespace {

using testing::TempDir;
using testing::writeFile;

bool waitForTicks(const Monitor& m, uint64_t n) {
  for (int i = 0; i < 500 && m.ticks() < n; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return m.ticks() >= n;
}

struct Counting : EventVisitor {
  int starts = 0, ends = 0, gpu = 0, host = 0;
  std::vector<Note> notes;
  std::optional<GpuSample> last_gpu0;
  void onSessionStart(const SessionStart& s) override {
    ++starts;
    EXPECT_EQ(s.app, "gpufl-monitor");
  }
  void onSessionEnd(const SessionEnd&) override { ++ends; }
  void onNote(const Note& n) override { notes.push_back(n); }
  void onGpuSample(const GpuSample& g) override {
    ++gpu;
    if (g.gpu == 0) last_gpu0 = g;
  }
  void onHostSample(const HostSample&) override { ++host; }
};

TEST(Monitor, ServesScriptedGpusOverHttpAndLogsThem) {
  TempDir dir;
  MonitorOptions o;
  o.interval = std::chrono::milliseconds(20);
  o.listen = "127.0.0.1:0";
  o.prefix = dir.path("mon");
  o.nvml_script = writeFile(dir.path("s.ndjson"), testing::kTwoGpuScript);
  std::vector<std::string> said;
  std::mutex said_mutex;
  std::string error;
  auto m = Monitor::start(
      o,
      [&](const std::string& s) {
        std::lock_guard<std::mutex> l(said_mutex);
        said.push_back(s);
      },
      &error);
  ASSERT_TRUE(m) << error;
  ASSERT_GT(m->port(), 0);
  ASSERT_TRUE(waitForTicks(*m, 3));

  httplib::Client client("127.0.0.1", m->port());
  auto res = client.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), kExpositionContentType);
  const std::string gpu0 = "{gpu=\"0\",uuid=\"GPU-aaaa\",name=\"NVIDIA H200\"}";
  EXPECT_NE(res->body.find("gpufl_gpu_utilization_ratio" + gpu0 + " 0.87"), std::string::npos)
      << res->body;
  // PCIe came only in the first tick; the monitor at 20 ms reads it every 50th tick, so it stands.
  EXPECT_NE(res->body.find("gpufl_gpu_pcie_receive_bytes_per_second" + gpu0 + " 5120\n"),
            std::string::npos);
  EXPECT_NE(res->body.find("gpufl_nvml_up{reason=\"\"} 1\n"), std::string::npos);
  EXPECT_NE(res->body.find("pid=\"4242\""), std::string::npos);
  // Where the sampler thread's CPU went: every part labelled, the host and render parts non-zero
  // after three ticks (they read /proc and format text on every tick).
  for (const char* part : kTickParts)
    EXPECT_NE(
        res->body.find("gpufl_monitor_tick_cpu_seconds_total{part=\"" + std::string(part) + "\"} "),
        std::string::npos)
        << part;
  EXPECT_EQ(res->body.find("gpufl_monitor_tick_cpu_seconds_total{part=\"host\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(res->body.find("gpufl_monitor_tick_cpu_seconds_total{part=\"render\"} 0\n"),
            std::string::npos);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->body, "ok\n");
  m->stop();
  EXPECT_FALSE(client.Get("/metrics"));  // no longer served

  // The documented PREFIX.system.log, and no other channel's file.
  struct stat st {};
  ASSERT_EQ(::stat((o.prefix + ".system.log").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_NE(::stat((o.prefix + ".device.log").c_str(), &st), 0);
  EXPECT_NE(::stat((o.prefix + ".scope.log").c_str(), &st), 0);
  Counting seen;
  log::ReadResult r = log::readPrefix(o.prefix, {}, seen);
  // The reader says the other channels have no files, and nothing else.
  EXPECT_EQ(r.warning_count, 2u);
  for (const log::ReadWarning& w : r.warnings)
    EXPECT_NE(w.message.find("no files for channel"), std::string::npos) << w.message;
  EXPECT_EQ(seen.starts, 1);  // session_start and session_end open and close the one file
  EXPECT_EQ(seen.ends, 1);
  EXPECT_GE(seen.host, 3);
  EXPECT_GE(seen.gpu, 5);  // 1 + 2 per later tick
  ASSERT_TRUE(seen.last_gpu0);
  EXPECT_EQ(seen.last_gpu0->power_mw, 456789u);
  EXPECT_FALSE(seen.last_gpu0->pcie_rx_kbps);  // the log keeps only what was measured
  ASSERT_FALSE(seen.notes.empty());
  EXPECT_EQ(seen.notes[0].feature, "nvml");
  EXPECT_EQ(seen.notes[0].status, "on");
  EXPECT_EQ(seen.notes[0].reason, "2 GPU(s): 0=NVIDIA H200 (GPU-aaaa) 1=NVIDIA H200 (GPU-bbbb)");
  std::lock_guard<std::mutex> l(said_mutex);
  EXPECT_EQ(said.at(1).rfind("listening on http://127.0.0.1:" + std::to_string(m->port()), 0), 0u);
}

TEST(Monitor, WithoutNvmlServesHostMetricsAndSaysWhy) {
  MonitorOptions o;
  o.interval = std::chrono::milliseconds(20);
  o.listen = "127.0.0.1:0";
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  std::vector<std::string> said;
  std::string error;
  auto m = Monitor::start(
      o, [&](const std::string& s) { said.push_back(s); }, &error);
  ASSERT_TRUE(m) << error;
  ASSERT_TRUE(waitForTicks(*m, 2));
  const std::string text = m->metricsText();
  EXPECT_NE(
      text.find("gpufl_nvml_up{reason=\"NVML not available (/nonexistent/libnvidia-ml.so.1 not "
                "found: no NVIDIA driver installed?)\"} 0\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("gpufl_host_memory_total_bytes "), std::string::npos);
  EXPECT_EQ(text.find("gpufl_gpu_"), std::string::npos);
  m->stop();
  EXPECT_EQ(said.at(0).rfind("nvml off: NVML not available", 0), 0u);
}

TEST(Monitor, TokenGuardsTheEndpoint) {
  MonitorOptions o;
  o.listen = "127.0.0.1:0";
  o.token = "s3cret";
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  std::string error;
  auto m = Monitor::start(
      o, [](const std::string&) {}, &error);
  ASSERT_TRUE(m) << error;
  httplib::Client client("127.0.0.1", m->port());
  auto denied = client.Get("/metrics");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  auto wrong = client.Get("/metrics", {{"Authorization", "Bearer s3creT"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto ok = client.Get("/metrics", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST(Monitor, RefusesBadOptions) {
  std::string error;
  auto say = [](const std::string&) {};
  MonitorOptions o;
  o.listen = "0.0.0.0:0";
  EXPECT_FALSE(Monitor::start(o, say, &error));
  EXPECT_EQ(error.rfind("refusing to listen on 0.0.0.0 (not loopback) without a token", 0), 0u);
  o.listen = "127.0.0.1";
  EXPECT_FALSE(Monitor::start(o, say, &error));
  EXPECT_EQ(error, "--listen '127.0.0.1': expected HOST:PORT (IPv6 as [::1]:PORT)");
  o.listen = "127.0.0.1:0";
  o.interval = std::chrono::milliseconds(0);
  EXPECT_FALSE(Monitor::start(o, say, &error));
  o.interval = std::chrono::milliseconds(100);
  o.nvml_script = "/nonexistent/script.ndjson";
  EXPECT_FALSE(Monitor::start(o, say, &error));
  EXPECT_EQ(error, "/nonexistent/script.ndjson: cannot open the NVML script");
}

TEST(Monitor, PortInUseIsAnError) {
  MonitorOptions o;
  o.listen = "127.0.0.1:0";
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  std::string error;
  auto first = Monitor::start(
      o, [](const std::string&) {}, &error);
  ASSERT_TRUE(first) << error;
  o.listen = "127.0.0.1:" + std::to_string(first->port());
  EXPECT_FALSE(Monitor::start(
      o, [](const std::string&) {}, &error));
  EXPECT_EQ(error.rfind("cannot listen on " + o.listen, 0), 0u) << error;
}

// Idle and slow-header connections (well past the 8 threads of cpp-httplib's own pool) do not keep
// a scraper waiting. Generous bounds; gpufl_http_load measures the latency.
TEST(Monitor, AnswersScrapesWhileIdleAndSlowClientsHoldConnections) {
  MonitorOptions o;
  o.interval = std::chrono::milliseconds(50);
  o.listen = "127.0.0.1:0";
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  std::string error;
  auto m = Monitor::start(
      o, [](const std::string&) {}, &error);
  ASSERT_TRUE(m) << error;
  http::testing::HostileClients hostile(m->port(), 50, 50, std::chrono::milliseconds(50));
  ASSERT_TRUE(hostile.waitOpen(std::chrono::seconds(10)));
  const http::testing::ScrapeTimes t = http::testing::scrape(
      m->port(), "/metrics", "", 3, std::chrono::milliseconds(50), std::chrono::seconds(3));
  EXPECT_EQ(t.failed, 0u);
  for (double ms : t.ms) EXPECT_LT(ms, 2000) << "a scrape took " << ms << " ms";
  const auto t0 = std::chrono::steady_clock::now();
  m->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

// A FIFO named like a log in the apps directory: sampling goes on, and stop() (SIGTERM in `gpufl
// monitor`) returns at once. Bounded: if the sampler blocks in open(), the test opens the FIFO
// for writing to release it, and fails.
TEST(Monitor, AFifoInTheAppsDirectoryNeitherStopsSamplingNorStop) {
  TempDir dir;
  const std::string fifo = dir.path("x.device.log");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  MonitorOptions o;
  o.interval = std::chrono::milliseconds(20);
  o.listen = "127.0.0.1:0";
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  o.apps_dirs = {dir.path("")};
  std::string error;
  auto m = Monitor::start(
      o, [](const std::string&) {}, &error);
  ASSERT_TRUE(m) << error;
  const bool sampled = waitForTicks(*m, 3);
  auto stopped = std::async(std::launch::async, [&] { m->stop(); });
  const bool quick = stopped.wait_for(std::chrono::seconds(1)) == std::future_status::ready;
  if (!quick) {
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    stopped.wait();
    if (w >= 0) ::close(w);
  }
  EXPECT_TRUE(sampled) << "sampling stopped at tick " << m->ticks();
  EXPECT_TRUE(quick) << "stop() waited for the FIFO";
}

}  // namespace
}  // namespace gpufl::monitor
