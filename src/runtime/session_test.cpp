#include "runtime/session.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <stdexcept>
#include <thread>

#include "core/clock.hpp"
#include "core/event_queue.hpp"
#include "core/scope_stack.hpp"

namespace gpufl::runtime {
namespace {

using namespace std::chrono_literals;
using core::Collector;
using core::EventQueue;
using core::SessionContext;

// Everything the session writes, in order, as "type" strings plus the events themselves.
struct Capture : EventVisitor {
  std::vector<std::string> order;
  std::vector<SessionStart> starts;
  std::vector<SessionEnd> ends;
  std::vector<Note> notes;
  std::vector<ScopePath> paths;
  std::vector<ScopeBegin> begins;
  std::vector<ScopeEnd> scope_ends;
  std::vector<KernelEvent> kernels;
  std::vector<HostSample> host;
  std::vector<Health> health;
  void onHealth(const Health& e) override {
    order.push_back("health");
    health.push_back(e);
  }
  void onSessionStart(const SessionStart& e) override {
    order.push_back("session_start");
    starts.push_back(e);
  }
  void onSessionEnd(const SessionEnd& e) override {
    order.push_back("session_end");
    ends.push_back(e);
  }
  void onNote(const Note& e) override {
    order.push_back("note");
    notes.push_back(e);
  }
  void onScopePath(const ScopePath& e) override {
    order.push_back("scope_path");
    paths.push_back(e);
  }
  void onScopeBegin(const ScopeBegin& e) override {
    order.push_back("scope_begin");
    begins.push_back(e);
  }
  void onScopeEnd(const ScopeEnd& e) override {
    order.push_back("scope_end");
    scope_ends.push_back(e);
  }
  void onKernel(const KernelEvent& e) override {
    order.push_back("kernel_event");
    kernels.push_back(e);
  }
  void onHostSample(const HostSample& e) override {
    order.push_back("host_sample");
    host.push_back(e);
  }
  const Note* note(const std::string& feature) const {
    for (const Note& n : notes)
      if (n.feature == feature) return &n;
    return nullptr;
  }
};

constexpr auto kLaunchKind =
    static_cast<core::RecordKind>(static_cast<uint16_t>(core::RecordKind::kFirstBackendKind));

// A stand-in for the CUDA collector: a device, a note, launch records from app threads joined in
// drain().
class FakeGpuCollector : public Collector {
 public:
  std::string_view name() const override { return "fakegpu"; }
  bool tracesGpu() const override { return true; }
  bool start(SessionContext& ctx) override {
    ctx_ = &ctx;
    DeviceInfo d;
    d.name = "Fake H200";
    d.sm_count = 132;
    ctx.addDevice(d);
    ctx.addNote("cupti_activity", "on", "fake");
    EXPECT_GE(ctx.clock()(), static_cast<uint64_t>(ctx.startNs()));
    return true;
  }
  bool gpuProfiling() const override { return true; }
  void onRecord(const core::Record& r, const core::ThreadInfo& t) override {
    if (r.kind == kLaunchKind) launches_.push_back({r, t});
  }
  void drain(EventVisitor& out) override {
    for (auto& [r, t] : launches_) {
      KernelEvent k;  // sid left empty: the session fills it
      k.correlation_id = r.id;
      k.scope_path = r.path;
      k.start_ns = r.ts_ns;
      k.end_ns = r.ts_ns + 1000;
      out.onKernel(k);
    }
    launches_.clear();
  }
  void stop() override { stopped_ = true; }
  void finish(SessionEnd& end) override {
    EXPECT_TRUE(stopped_);
    end.dropped["activity"] = 3;
    end.overhead_ns["cupti_callbacks"] = 5;
  }

 private:
  SessionContext* ctx_ = nullptr;
  bool stopped_ = false;
  std::vector<std::pair<core::Record, core::ThreadInfo>> launches_;
};

// A stand-in for a sampler: its own thread, a bounded queue, a last sample pushed by stop().
class FakeSampler : public Collector {
 public:
  std::string_view name() const override { return "fakesampler"; }
  bool start(SessionContext& ctx) override {
    ctx_ = &ctx;
    thread_ = std::thread([this] {
      while (!quit_.load()) {
        if (on_.load()) sample();
        std::this_thread::sleep_for(1ms);
      }
    });
    return true;
  }
  void drain(EventVisitor& out) override {
    queue_.drain([&](HostSample& s) { out.onHostSample(s); });
  }
  void stop() override {
    quit_.store(true);
    thread_.join();
    sample();  // the last sample must survive: drain() runs after stop()
  }
  void setSampling(bool on) override { on_.store(on); }

 private:
  void sample() {
    HostSample s;
    s.sid = ctx_->sid();
    s.ts_ns = core::monotonicNs();
    s.cpu_pct = 1.0;
    queue_.push(std::move(s));
    ctx_->requestDrain();
  }
  SessionContext* ctx_ = nullptr;
  EventQueue<HostSample> queue_{64};
  std::thread thread_;
  std::atomic<bool> quit_{false}, on_{true};
};

class Throwing : public Collector {
 public:
  std::string_view name() const override { return "throwing"; }
  bool start(SessionContext&) override { throw std::runtime_error("boom"); }
  void drain(EventVisitor&) override { throw std::runtime_error("drain boom"); }
  void stop() override {}
};

SessionConfig config(Capture& cap) {
  SessionConfig c;
  c.options.app_name = "session_test";
  c.options.log_path = "/nonexistent/never-opened";
  c.sink = &cap;
  c.period = 5ms;
  return c;
}

TEST(SessionTest, ScopesCollectorsAndSessionRecordsInOrder) {
  Capture cap;
  SessionConfig c = config(cap);
  c.option_issues.push_back({"GPUFL_ENGINE", "GPUFL_ENGINE='x' is not an engine"});
  c.factories.emplace_back("gpu",
                           [](const InitOptions&) { return std::make_unique<FakeGpuCollector>(); });
  c.factories.emplace_back("sampler",
                           [](const InitOptions&) { return std::make_unique<FakeSampler>(); });
  c.factories.emplace_back("none", [](const InitOptions&) { return std::unique_ptr<Collector>(); });
  std::string error;
  auto s = Session::start(std::move(c), &error);
  ASSERT_TRUE(s) << error;
  EXPECT_TRUE(s->gpuProfiling());
  std::string second_error;
  EXPECT_FALSE(Session::start(config(cap), &second_error));  // one recording session per process
  EXPECT_NE(second_error.find("already"), std::string::npos);

  const uint64_t outer = core::scopeBegin("sess.outer", "tagged");
  const uint64_t inner = core::scopeBegin("sess.inner");
  core::Record launch;
  launch.kind = kLaunchKind;
  launch.source = core::Source::Launch;
  launch.id = 42;
  launch.path = core::currentScopePath();
  launch.ts_ns = core::monotonicNs();
  ASSERT_TRUE(core::pushRecord(launch));
  core::scopeEnd(inner);
  core::scopeEnd(outer);
  std::this_thread::sleep_for(30ms);
  s->stop();
  s->stop();  // idempotent

  ASSERT_EQ(cap.starts.size(), 1u);
  ASSERT_EQ(cap.ends.size(), 1u);
  EXPECT_EQ(cap.order.front(), "session_start");
  EXPECT_EQ(cap.order.back(), "session_end");
  const SessionStart& st = cap.starts[0];
  EXPECT_EQ(st.sid, st.session_id.substr(0, 8));
  EXPECT_EQ(st.app, "session_test");
  ASSERT_EQ(st.devices.size(), 1u);
  EXPECT_EQ(st.devices[0].name, "Fake H200");
  EXPECT_EQ(st.options.at("app_name"), "\"session_test\"");
  ASSERT_GE(cap.notes.size(), 2u);
  EXPECT_EQ(cap.notes[0].feature, "options");
  EXPECT_EQ(cap.notes[0].status, "degraded");
  ASSERT_NE(cap.note("cupti_activity"), nullptr);
  EXPECT_EQ(cap.note("cupti_activity")->status, "on");
  // The program's-thread time, then where it went: each collector by name, in order.
  ASSERT_NE(cap.note("gpufl_time"), nullptr);
  EXPECT_TRUE(std::regex_match(
      cap.note("gpufl_time")->reason,
      std::regex(
          "init [0-9.]+ ms, shutdown [0-9.]+ ms on the program's thread; "
          "init: log [0-9.]+, fakegpu [0-9.]+, fakesampler [0-9.]+, session_start [0-9.]+ ms; "
          "shutdown: writer thread [0-9.]+, fakegpu [0-9.]+, fakesampler [0-9.]+, last round "
          "[0-9.]+, flush [0-9.]+, finish [0-9.]+ ms")))
      << cap.note("gpufl_time")->reason;

  ASSERT_EQ(cap.paths.size(), 2u);  // outer, outer/inner: once each
  EXPECT_EQ(cap.paths[0].name, "sess.outer");
  EXPECT_EQ(cap.paths[0].parent, 0u);
  EXPECT_EQ(cap.paths[1].name, "sess.inner");
  EXPECT_EQ(cap.paths[1].parent, cap.paths[0].id);
  EXPECT_EQ(cap.paths[1].depth, 1);
  ASSERT_EQ(cap.begins.size(), 2u);
  ASSERT_EQ(cap.scope_ends.size(), 2u);
  EXPECT_EQ(cap.begins[0].tag, "tagged");
  EXPECT_EQ(cap.begins[0].sid, st.sid);
  EXPECT_EQ(cap.begins[1].path, cap.paths[1].id);
  ASSERT_EQ(cap.kernels.size(), 1u);
  EXPECT_EQ(cap.kernels[0].sid, st.sid);  // filled by the session
  EXPECT_EQ(cap.kernels[0].scope_path, cap.paths[1].id);
  EXPECT_FALSE(cap.host.empty());
  EXPECT_EQ(cap.host.back().sid, st.sid);

  const SessionEnd& end = cap.ends[0];
  EXPECT_EQ(end.scopes, 2u);
  EXPECT_EQ(end.kernels, 1u);
  EXPECT_EQ(end.dropped.at("scope"), 0u);
  EXPECT_EQ(end.dropped.at("launch"), 0u);
  EXPECT_EQ(end.dropped.at("activity"), 3u);
  EXPECT_EQ(end.overhead_ns.at("cupti_callbacks"), 5u);
  EXPECT_GT(end.overhead_ns.at("writer"), 0u);
  EXPECT_GT(end.cpu_time_ns, 0u);
  EXPECT_GE(end.end_ns, st.start_ns);
}

TEST(SessionTest, WithoutGpuCollectorTheSessionSaysSo) {
  Capture cap;
  SessionConfig c = config(cap);
  c.factories.emplace_back("throwing",
                           [](const InitOptions&) { return std::make_unique<Throwing>(); });
  c.factories.emplace_back("bad_factory", [](const InitOptions&) -> std::unique_ptr<Collector> {
    throw std::runtime_error("no");
  });
  auto s = Session::start(std::move(c), nullptr);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->gpuProfiling());
  s->stop();
  const Note* n = cap.note("cupti_activity");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->status, "off");
  EXPECT_EQ(n->reason, "gpufl built without CUDA backend");
  ASSERT_NE(cap.note("throwing"), nullptr);
  EXPECT_NE(cap.note("throwing")->reason.find("boom"), std::string::npos);
  ASSERT_NE(cap.note("bad_factory"), nullptr);
  EXPECT_EQ(cap.ends.size(), 1u);
}

// A collector whose deep engine is refused (twice, as an engine retrying per context would say).
class RefusedEngineCollector : public Collector {
 public:
  std::string_view name() const override { return "refused"; }
  bool start(SessionContext& ctx) override {
    for (int i = 0; i < 2; ++i)
      ctx.addNote("pc_sampling", "off",
                  "cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (no permission)");
    return true;
  }
  void drain(EventVisitor&) override {}
  void stop() override {}
};

TEST(SessionTest, ARefusedEngineIsSaidOnceWithWhatToChange) {
  Capture cap;
  SessionConfig c = config(cap);
  c.factories.emplace_back(
      "refused", [](const InitOptions&) { return std::make_unique<RefusedEngineCollector>(); });
  testing::internal::CaptureStderr();
  auto s = Session::start(std::move(c), nullptr);
  ASSERT_TRUE(s);
  s->stop();
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string line = "gpufl: PcSampling off: ";
  const size_t at = err.find(line);
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_EQ(err.find(line, at + 1), std::string::npos) << err;  // once, not per note
  const Note* n = cap.note("pc_sampling");
  ASSERT_NE(n, nullptr);
  EXPECT_NE(n->reason.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos);
  // What to change follows CUPTI's words (root with CAP_SYS_ADMIN gets the "looks allowed" line).
  EXPECT_NE(n->reason.find("CAP_SYS_ADMIN") == std::string::npos ? n->reason.find("looks allowed")
                                                                 : n->reason.find("CAP_SYS_ADMIN"),
            std::string::npos)
      << n->reason;
}

TEST(SessionTest, ConsecutiveSessionsAreIndependent) {
  Capture a, b;
  auto s1 = Session::start(config(a), nullptr);
  ASSERT_TRUE(s1);
  const uint64_t spanning = core::scopeBegin("sess.span");
  const uint64_t one = core::scopeBegin("sess.one");
  core::scopeEnd(one);
  s1->stop();
  auto s2 = Session::start(config(b), nullptr);
  ASSERT_TRUE(s2);
  EXPECT_NE(s1->generation(), s2->generation());
  const uint64_t two = core::scopeBegin("sess.two");  // nested in the spanning scope's path
  core::scopeEnd(two);
  core::scopeEnd(spanning);  // began in session 1: not recorded in session 2
  s2->stop();
  EXPECT_NE(a.starts[0].sid, b.starts[0].sid);
  ASSERT_EQ(b.begins.size(), 1u);
  EXPECT_EQ(b.begins[0].name, "sess.two");
  EXPECT_EQ(b.scope_ends.size(), 1u);
  ASSERT_EQ(b.paths.size(),
            2u);  // sess.span (ancestor, described again in this session) and sess.span/sess.two
  EXPECT_EQ(b.paths[0].name, "sess.span");
  EXPECT_EQ(a.ends[0].scopes, 2u);
  EXPECT_EQ(b.ends[0].scopes, 1u);
}

TEST(SessionTest, UnwritableLogPathFailsWithThePathInTheMessage) {
  SessionConfig c;
  c.options.log_path = "/proc/gpufl-cannot-write/here";
  std::string error;
  EXPECT_FALSE(Session::start(std::move(c), &error));
  EXPECT_NE(error.find("/proc/gpufl-cannot-write/here"), std::string::npos) << error;
  EXPECT_EQ(core::recordingGeneration(), 0u);
  Capture cap;
  auto s = Session::start(config(cap), nullptr);  // the failure left nothing behind
  EXPECT_TRUE(s);
}

// A collector with a deep engine whose drain burns the writer thread's CPU: gpufl's cost, as the
// health records measure it, crosses any limit.
class CostlyDeepCollector : public Collector {
 public:
  std::string_view name() const override { return "costly"; }
  bool start(SessionContext&) override { return true; }
  void drain(EventVisitor&) override {
    const int64_t until = core::monotonicNs() + 4'000'000;
    while (core::monotonicNs() < until) {
    }
  }
  void stop() override {}
  void health(Health& h, std::vector<ThreadRole>& threads) override {
    h.dropped["costly"] = 2;
    threads.push_back({12345678, "nobody"});  // no such thread: nothing read, nothing counted
  }
  bool runsDeepEngines() const override { return true; }
  bool pauseDeepEngines() override {
    ++paused;
    return true;
  }
  std::atomic<int> paused{0};
};

TEST(SessionTest, ASessionWritesOneHealthRecordBeforeSessionEndWithItsCosts) {
  Capture cap;
  SessionConfig c = config(cap);
  c.options.health_period_s = 0;  // only the last one
  c.factories.emplace_back("gpu",
                           [](const InitOptions&) { return std::make_unique<FakeGpuCollector>(); });
  auto s = Session::start(std::move(c), nullptr);
  ASSERT_TRUE(s);
  std::this_thread::sleep_for(30ms);
  s->stop();
  ASSERT_EQ(cap.health.size(), 1u);
  const Health& h = cap.health[0];
  EXPECT_TRUE(h.final);
  EXPECT_EQ(h.sid, cap.starts[0].sid);
  EXPECT_GT(h.period_ns, 0);
  EXPECT_TRUE(h.cpu_ns.count("writer"));
  EXPECT_GT(h.rss_bytes, 1u << 20);
  EXPECT_GT(h.buffer_bytes, 0u);  // this thread's ring at least
  EXPECT_EQ(h.dropped.count("launch"), 1u);
  EXPECT_TRUE(h.step_down.empty());
  // Just before session_end, whose drops it shares.
  ASSERT_GE(cap.order.size(), 2u);
  EXPECT_EQ(cap.order[cap.order.size() - 2], "health");
  EXPECT_EQ(cap.order.back(), "session_end");
}

TEST(SessionTest, OverTheCpuLimitForTwoPeriodsTheDeepEnginesArePausedAndANoteSaysSo) {
  Capture cap;
  SessionConfig c = config(cap);
  c.options.health_period_s = 1;
  c.options.max_cpu_pct = 5;  // the costly collector keeps the writer near one core
  CostlyDeepCollector* costly = nullptr;
  c.factories.emplace_back("costly", [&](const InitOptions&) {
    auto p = std::make_unique<CostlyDeepCollector>();
    costly = p.get();
    return p;
  });
  auto s = Session::start(std::move(c), nullptr);
  ASSERT_TRUE(s);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (costly->paused.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_EQ(costly->paused.load(), 1);
  s->stop();
  const Note* n = cap.note("step_down");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->status, "degraded");
  EXPECT_NE(n->reason.find("above max_cpu_pct 5.0%: deep engines paused"), std::string::npos)
      << n->reason;
  ASSERT_GE(cap.health.size(), 3u);  // two periods over, then the last record
  EXPECT_GT(cap.health[0].cpu_pct, 5.0);
  EXPECT_EQ(cap.health[0].dropped.at("costly"), 2u);
  EXPECT_EQ(cap.health.back().step_down, std::vector<std::string>{"deep_engines_paused"});
}

}  // namespace
}  // namespace gpufl::runtime
