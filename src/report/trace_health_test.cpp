// The Trace Health section from hand-made sessions: a healthy log is one line (as read, or as
// checked by gpufl's health records); violations, drops, a missing session_end and a step-down each
// become a problem with how much, since when and what it means; zero times after a fatal CUDA error
// are explained by it; the JSON carries the same through its field table.
#include "report/aggregate/trace_health.hpp"

#include <gtest/gtest.h>

#include "report/aggregate/report_builder.hpp"
#include "report/report.hpp"

namespace gpufl::report {
namespace {

constexpr int64_t kStart = 1'000'000'000;
constexpr int64_t kMs = 1'000'000;

void start(ReportBuilder& b) {
  SessionStart s;
  s.sid = "aaaaaaaa";
  s.app = "test";
  s.start_ns = kStart;
  b.onSessionStart(s);
}

void end(ReportBuilder& b, std::map<std::string, uint64_t> dropped = {}) {
  SessionEnd e;
  e.end_ns = kStart + 10'000 * kMs;
  e.dropped = std::move(dropped);
  e.dropped["activity"] += 0;
  b.onSessionEnd(e);
}

void kernels(ReportBuilder& b, int n, int64_t duration_ns = 1'000) {
  KernelDef d;
  d.id = 1;
  d.name = "_Z4tinyv";
  b.onKernelDef(d);
  for (int i = 0; i < n; ++i) {
    KernelEvent k;
    k.def_id = 1;
    k.correlation_id = i + 1;
    k.start_ns = kStart + (i + 1) * kMs;
    k.end_ns = k.start_ns + duration_ns;
    b.onKernel(k);
  }
}

Health health(int64_t at_ms, uint64_t checked) {
  Health h;
  h.ts_ns = kStart + at_ms * kMs;
  h.checked = checked;
  h.cpu_ns = {{"writer", 20 * kMs}, {"cupti", 5 * kMs}};
  h.cpu_pct = 0.3;
  h.buffer_bytes = 8 << 20;
  h.rss_bytes = 200 << 20;
  h.clock_mode = "callback";
  h.clock_offset_ns = 100;
  h.clock_drift_ns = 0;
  h.clock_correction_ns = 0;
  h.cupti_version = 130001;
  h.cupti_issues = {"CUPTI 13.0 Update 1: its CPU use grows"};
  h.dropped["activity"] = 0;
  return h;
}

std::string text(const Report& r, bool verbose = false) {
  ReportOptions o;
  o.verbose = verbose;
  const std::string all = renderText(r, o);
  const size_t at = all.find("Trace Health");
  return at == std::string::npos ? "" : all.substr(all.rfind('\n', at) + 1);
}

TEST(TraceHealth, AHealthyLogWithoutHealthRecordsIsOneLineJudgedAsRead) {
  ReportBuilder b;
  start(b);
  kernels(b, 3);
  end(b);
  const Report r = std::move(b).build();
  EXPECT_TRUE(r.trace_health.healthy);
  EXPECT_EQ(r.trace_health.read, 3u);
  EXPECT_EQ(text(r), "  Trace Health:         healthy as read: 3 records, none invalid or lost\n");
}

TEST(TraceHealth, AHealthyCheckedLogIsOneLineAndVerboseAddsTheCostAndCupti) {
  ReportBuilder b;
  start(b);
  kernels(b, 4);
  b.onHealth(health(5'000, 2));
  Health last = health(9'000, 4);
  last.final = true;
  last.rss_bytes = 210 << 20;
  b.onHealth(last);
  end(b);
  const Report r = std::move(b).build();
  ASSERT_TRUE(r.trace_health.healthy);
  EXPECT_EQ(r.trace_health.health_records, 2u);
  EXPECT_EQ(text(r), "  Trace Health:         healthy: 4 records checked, none invalid or lost\n");
  EXPECT_NEAR(r.trace_health.cpu_pct, 0.25, 1e-9);  // 25 ms of gpufl CPU over 10 s
  EXPECT_EQ(r.trace_health.rss_growth_bytes, int64_t{10} << 20);
  const std::string verbose = text(r, true);
  EXPECT_NE(verbose.find("gpufl's Cost:"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("cupti 5.00 ms"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("Known Issue:          CUPTI 13.0 Update 1"), std::string::npos)
      << verbose;
}

TEST(TraceHealth, ViolationsAndDropsSayWhatHowMuchSinceWhenAndWhatItMeans) {
  ReportBuilder b;
  start(b);
  kernels(b, 5);
  Health h = health(6'000, 1'000);
  h.violations = {{"before_launch", 7}, {"zero_time", 18}};
  h.violations_since_ns = {{"before_launch", kStart + 2'500 * kMs},
                           {"zero_time", kStart + 4'200 * kMs}};
  HealthExample e;
  e.kind = "zero_time";
  e.record = "kernel";
  e.correlation_id = 99;
  h.examples = {e};
  h.dropped["activity"] = 12;
  b.onHealth(h);
  end(b, {{"activity", 12}, {"untimed_kernels", 18}});
  const Report r = std::move(b).build();
  const TraceHealth& t = r.trace_health;
  ASSERT_FALSE(t.healthy);
  // untimed_kernels is the checks' zero_time here: said once.
  ASSERT_EQ(t.issues.size(), 3u);
  EXPECT_EQ(t.issues[0].kind, "before_launch");
  EXPECT_EQ(t.issues[1].kind, "zero_time");
  EXPECT_EQ(t.issues[1].count, 18u);
  EXPECT_EQ(t.issues[1].since_ns, kStart + 4'200 * kMs);
  EXPECT_EQ(t.issues[2].kind, "dropped.activity");
  EXPECT_EQ(t.issues[2].since_ns, kStart + 6'000 * kMs);  // the first health record that saw it
  const std::string out = text(r);
  EXPECT_NE(out.find("  Trace Health\n"), std::string::npos) << out;  // the banner
  EXPECT_NE(out.find("Verdict:              3 problems (1,000 records checked as written)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find("* zero_time: 18 records without a start or end time (left out), since 4.20 s\n"
               "    into the session. Means: kernel and copy counts and GPU time above are\n"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("Known Issue:          CUPTI 13.0 Update 1"), std::string::npos) << out;
  EXPECT_NE(out.find("* dropped.activity: 12 records dropped by CUPTI"), std::string::npos) << out;
  EXPECT_NE(out.find("--verbose: the first records of each kind"), std::string::npos) << out;
  EXPECT_NE(text(r, true).find("Example:              zero_time (kernel, corr 99)"),
            std::string::npos);
  const std::string json = renderJson(r);
  EXPECT_NE(json.find("\"trace_health\": {\n    \"healthy\": false"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"zero_time\",\n        \"count\": 18,\n        \"since_ns\": "
                      "5200000000"),
            std::string::npos)
      << json;
}

TEST(TraceHealth, ZeroTimesAfterAFatalCudaErrorAreExplainedByIt) {
  ReportBuilder b;
  start(b);
  kernels(b, 2);
  Incident i;
  i.ts_ns = kStart + 3'000 * kMs;
  i.kind = "cuda_error";
  i.error_name = "cudaErrorIllegalAddress";
  b.onIncident(i);
  Health h = health(5'000, 10);
  h.violations = {{"zero_time", 8}};
  b.onHealth(h);
  end(b, {{"untimed_kernels", 8}});
  const Report r = std::move(b).build();
  ASSERT_EQ(r.trace_health.issues.size(), 1u);
  EXPECT_NE(r.trace_health.issues[0].meaning.find("after the fatal CUDA error"), std::string::npos);
}

TEST(TraceHealth, ALogReadWithBadTimesOrNoEndOrAStepDownIsNotHealthy) {
  ReportBuilder b;
  start(b);
  kernels(b, 3, -5);  // ends before it starts: only a log written without the checks has these
  Health h = health(4'000, 3);
  h.step_down = {"deep_engines_paused"};
  b.onHealth(h);
  const Report r = std::move(b).build();  // no session_end
  std::vector<std::string> kinds;
  for (const TraceHealthIssue& i : r.trace_health.issues) kinds.push_back(i.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"invalid_as_read", "session_end", "step_down"}));
  EXPECT_EQ(r.trace_health.issues[0].count, 3u);
  EXPECT_EQ(r.trace_health.issues[2].since_ns, kStart + 4'000 * kMs);
}

}  // namespace
}  // namespace gpufl::report
