#include "host/host_sampler.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "host/proc_parse.hpp"

namespace gpufl::host {
namespace {

const std::string kProc = std::string(GPUFL_TEST_DATA_DIR) + "/proc/";

// Fixture values (tests/data/proc/basic_t0 -> basic_t1), computed by hand:
//  /proc/stat      total 9500 -> 11500 ticks (guest 100 excluded), idle+iowait 8100 -> 9600: busy
//  500/2000 = 25 % /proc/meminfo   MemTotal 16000000 kB; MemAvailable 12000000 -> 11000000 kB: used
//  4000000 -> 5000000 kB /proc/self/stat utime+stime 150+50 -> 250+100 ticks at 100 Hz over 2
//  s: 1.5 s / 2 s = 75 % /proc/self/status VmRSS 204800 -> 208896 kB
TEST(HostSampler, TwoSnapshots) {
  HostSampler sampler(kProc + "basic_t0", 100);
  HostSample a = sampler.sample(1'000'000'000);
  EXPECT_FALSE(a.cpu_pct.has_value());  // a rate needs two samples
  EXPECT_FALSE(a.proc_cpu_pct.has_value());
  EXPECT_EQ(a.ts_ns, 1'000'000'000);
  EXPECT_EQ(a.ram_total_bytes, 16'000'000ull * 1024);
  EXPECT_EQ(a.ram_used_bytes, 4'000'000ull * 1024);
  EXPECT_EQ(a.proc_rss_bytes, 204'800ull * 1024);

  sampler.setRoot(kProc + "basic_t1");
  HostSample b = sampler.sample(3'000'000'000);
  ASSERT_TRUE(b.cpu_pct.has_value());
  EXPECT_DOUBLE_EQ(*b.cpu_pct, 25.0);
  ASSERT_TRUE(b.proc_cpu_pct.has_value());
  EXPECT_DOUBLE_EQ(*b.proc_cpu_pct, 75.0);
  EXPECT_EQ(b.ram_total_bytes, 16'000'000ull * 1024);
  EXPECT_EQ(b.ram_used_bytes, 5'000'000ull * 1024);
  EXPECT_EQ(b.proc_rss_bytes, 208'896ull * 1024);
  EXPECT_TRUE(sampler.takeNewIssues().empty());
}

TEST(HostSampler, MissingTreeLeavesFieldsEmptyWithReasons) {
  HostSampler sampler(kProc + "does_not_exist", 100);
  HostSample s = sampler.sample(1);
  EXPECT_FALSE(s.cpu_pct || s.proc_cpu_pct || s.ram_used_bytes || s.ram_total_bytes ||
               s.proc_rss_bytes);
  auto issues = sampler.takeNewIssues();
  ASSERT_EQ(issues.size(), 4u);
  EXPECT_EQ(issues[0].field, "cpu");
  EXPECT_EQ(issues[0].reason, "/proc/stat: No such file or directory");
  EXPECT_EQ(issues[1].field, "memory");
  EXPECT_EQ(issues[2].field, "process_cpu");
  EXPECT_EQ(issues[3].field, "process_rss");
  // Reported once, not on every sample.
  sampler.sample(2);
  EXPECT_TRUE(sampler.takeNewIssues().empty());
}

TEST(HostSampler, MalformedFilesLeaveFieldsEmptyWithReasons) {
  HostSampler sampler(kProc + "malformed", 100);
  sampler.sample(1);
  HostSample s = sampler.sample(2);
  EXPECT_FALSE(s.cpu_pct || s.proc_cpu_pct || s.ram_used_bytes || s.ram_total_bytes ||
               s.proc_rss_bytes);
  auto issues = sampler.takeNewIssues();
  ASSERT_EQ(issues.size(), 4u);
  EXPECT_EQ(issues[0].reason, "/proc/stat: no parsable aggregate \"cpu\" line");
  EXPECT_EQ(issues[1].reason, "/proc/meminfo: no parsable MemTotal/MemAvailable lines");
  EXPECT_EQ(issues[2].reason, "/proc/self/stat: utime/stime not found");
  EXPECT_EQ(issues[3].reason, "/proc/self/status: no parsable VmRSS line");
}

TEST(HostSampler, RecoveredFieldIsReportedAgainWhenItFailsAgain) {
  HostSampler sampler(kProc + "basic_t0", 100);
  sampler.sample(1);
  sampler.setRoot(kProc + "malformed");
  sampler.sample(2);
  EXPECT_EQ(sampler.takeNewIssues().size(), 4u);
  sampler.setRoot(kProc + "basic_t1");
  sampler.sample(3);
  sampler.setRoot(kProc + "malformed");
  sampler.sample(4);
  EXPECT_EQ(sampler.takeNewIssues().size(), 4u);
}

TEST(HostSampler, RealProcReadsSomething) {
  if (access("/proc/self/stat", R_OK) != 0) GTEST_SKIP() << "no /proc";
  HostSampler sampler;
  sampler.sample(1'000'000'000);
  HostSample s = sampler.sample(1'100'000'000);
  EXPECT_TRUE(s.ram_total_bytes.has_value());
  EXPECT_TRUE(s.proc_rss_bytes.has_value());
  EXPECT_GT(*s.proc_rss_bytes, 0u);
  EXPECT_TRUE(sampler.takeNewIssues().empty());
}

TEST(ProcParse, MeminfoWithoutMemAvailable) {
  // Kernels before 3.14: available = MemFree + Buffers + Cached = 4000000 kB.
  auto m = parseMeminfo(
      "MemTotal:        8000000 kB\nMemFree:         1000000 kB\nBuffers:          200000 "
      "kB\nCached:          "
      "2800000 kB\n");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->usedBytes(), 4'000'000ull * 1024);
}

TEST(ProcParse, StatNeedsEightFields) {
  EXPECT_FALSE(parseProcStat("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7 8\n"));
  EXPECT_FALSE(parseProcStat("cpu0 1 2 3 4 5 6 7 8\n"));
  EXPECT_FALSE(parseProcStat(""));
  auto t = parseProcStat("cpu  1 2 3 4 5 6 7 8");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->total, 36u);
  EXPECT_EQ(t->idle, 9u);
}

TEST(ProcParse, BusyPercentRejectsBackwardsCounters) {
  EXPECT_FALSE(cpuBusyPercent({100, 50}, {100, 50}));
  EXPECT_FALSE(cpuBusyPercent({200, 50}, {100, 20}));
  EXPECT_DOUBLE_EQ(*cpuBusyPercent({100, 50}, {200, 150}), 0.0);
}

TEST(ProcParse, ProcessStatWithParenthesesInName) {
  EXPECT_EQ(parseProcessCpuTicks("7 (a) b) (c) S 1 7 7 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0 5 0 0"),
            33u);
  EXPECT_FALSE(parseProcessCpuTicks("7 (a) S 1 7 7 0 -1 0 0 0 0 0 11"));
  EXPECT_FALSE(parseProcessCpuTicks("7 (a) S 1 7 7 0 -1 0 0 0 0 0 x 22 0"));
}

TEST(ProcParse, VmRss) {
  EXPECT_EQ(parseVmRssBytes("VmRSS:\t  1 kB\n"), 1024u);
  EXPECT_FALSE(parseVmRssBytes("VmRSSx:\t  1 kB\n"));
  EXPECT_FALSE(parseVmRssBytes("VmRSS:\t  1 MB\n"));
}

}  // namespace
}  // namespace gpufl::host
