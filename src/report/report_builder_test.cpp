// Aggregation math against hand-computed values: busy time, percentiles, throughput, energy,
// scopes, SASS.
#include "report/aggregate/report_builder.hpp"

#include <gtest/gtest.h>

#include <optional>

#include "report/aggregate/profile_stats.hpp"
#include "report/aggregate/scope_stats.hpp"
#include "report/report.hpp"

namespace gpufl::report {
namespace {

KernelDef def(uint32_t id, const std::string& name, Dim3 grid, Dim3 block) {
  KernelDef d;
  d.id = id;
  d.name = "_Z" + name;
  d.demangled = name;
  d.grid = grid;
  d.block = block;
  return d;
}

KernelEvent kernel(uint32_t k, int64_t start, int64_t end, uint32_t scope = 0, bool instr = false) {
  KernelEvent e;
  e.def_id = k;
  e.start_ns = start;
  e.end_ns = end;
  e.scope_path = scope;
  e.instrumented = instr;
  return e;
}

void session(ReportBuilder& b, int64_t start, int64_t end) {
  SessionStart s;
  s.start_ns = start;
  s.app = "test";
  b.onSessionStart(s);
  SessionEnd e;
  e.end_ns = end;
  b.onSessionEnd(e);
}

TEST(ReportBuilder, DevicesLearnedAfterStartJoinTheSession) {
  ReportBuilder b;
  SessionStart start;
  start.sid = "aaaaaaaa";
  b.onSessionStart(start);  // under gpufl trace, session_start lists no device
  DeviceEvent late;
  late.sid = "aaaaaaaa";
  late.device.name = "NVIDIA H200";
  late.device.sm_count = 132;
  b.onDevice(late);
  b.onDevice(late);  // the same device again (another segment) is not a second GPU
  Report r = b.build();
  ASSERT_EQ(r.session.devices.size(), 1u);
  EXPECT_EQ(r.session.devices[0].name, "NVIDIA H200");
}

TEST(ReportBuilder, BusyTimeIsTheUnionOfKernelIntervals) {
  ReportBuilder b;
  session(b, 0, 1000);
  b.onKernelDef(def(1, "k", {1, 1, 1}, {32, 1, 1}));
  b.onKernel(kernel(1, 100, 300));
  b.onKernel(kernel(1, 200, 400));  // overlaps the first (another stream)
  b.onKernel(kernel(1, 600, 700));
  Report r = b.build();
  EXPECT_EQ(r.session.duration_ns, 1000);
  EXPECT_EQ(r.kernels.total_ns, 500);  // 200 + 200 + 100
  EXPECT_EQ(r.kernels.busy_ns, 400);   // [100,400) + [600,700)
  EXPECT_DOUBLE_EQ(r.kernels.busy_pct, 40.0);
  EXPECT_DOUBLE_EQ(r.kernels.all.median_ns, 200);
  EXPECT_EQ(r.kernels.all.min_ns, 100);
}

TEST(ReportBuilder, GroupsByNameAndShape) {
  ReportBuilder b;
  session(b, 0, 10000);
  b.onKernelDef(def(1, "k", {8, 1, 1}, {256, 1, 1}));
  b.onKernelDef(def(2, "k", {8, 1, 1}, {256, 1, 1}));  // same shape on another device: same group
  b.onKernelDef(def(3, "k", {16, 1, 1}, {256, 1, 1}));
  b.onKernel(kernel(1, 0, 100));
  b.onKernel(kernel(2, 100, 200));
  b.onKernel(kernel(3, 200, 500));
  b.onKernel(kernel(9, 500, 510));  // never defined
  Report r = b.build();
  ASSERT_EQ(r.kernels.groups.size(), 3u);
  EXPECT_EQ(r.kernels.groups[0].grid.x, 16u);  // 300 ns, the largest total
  EXPECT_EQ(r.kernels.groups[1].durations.count, 2u);
  EXPECT_EQ(r.kernels.groups[1].defs, 2u);
  EXPECT_EQ(r.kernels.unique_functions, 2u);  // "k" and the undefined one
  EXPECT_EQ(r.kernels.undefined_refs, 1u);
}

TEST(ReportBuilder, CleanStatsExcludeInstrumentedLaunches) {
  ReportBuilder b;
  session(b, 0, 100000);
  b.onKernelDef(def(1, "k", {1, 1, 1}, {32, 1, 1}));
  b.onKernel(kernel(1, 0, 1000, 0, true));
  b.onKernel(kernel(1, 2000, 3000, 0, true));
  b.onKernel(kernel(1, 4000, 4100));
  b.onKernel(kernel(1, 5000, 5300));
  Report r = b.build();
  EXPECT_EQ(r.kernels.instrumented, 2u);
  EXPECT_EQ(r.kernels.clean.count, 2u);
  EXPECT_DOUBLE_EQ(r.kernels.clean.avg_ns, 200);
  EXPECT_DOUBLE_EQ(r.kernels.all.avg_ns, 600);  // (1000 + 1000 + 100 + 300) / 4
  ASSERT_FALSE(r.hints.empty());
  EXPECT_EQ(r.hints.front().kind, "instrumentation");
}

TEST(ReportBuilder, ThroughputIsBytesOverSummedDurations) {
  ReportBuilder b;
  session(b, 0, 1000000000);
  MemcpyEvent c;
  c.kind = CopyKind::HtoD;
  c.bytes = 1000000;
  c.start_ns = 0;
  c.end_ns = 1000000;  // 1 ms
  b.onMemcpy(c);
  c.bytes = 3000000;
  c.start_ns = 2000000;
  c.end_ns = 4000000;  // 2 ms
  c.src_kind = "pageable";
  b.onMemcpy(c);
  MemcpyEvent set;
  set.is_memset = true;
  set.bytes = 500;
  set.start_ns = 10;
  set.end_ns = 20;
  b.onMemcpy(set);
  Report r = b.build();
  ASSERT_EQ(r.transfers.directions.size(), 1u);
  const TransferStats& h = r.transfers.directions[0];
  EXPECT_EQ(h.kind, "HtoD");
  EXPECT_EQ(h.bytes, 4000000u);
  EXPECT_DOUBLE_EQ(h.throughput_bps, 4e6 / 3e-3);  // 1.33 GB/s
  EXPECT_EQ(r.transfers.copies, 2u);
  EXPECT_EQ(r.transfers.pageable_copies, 1u);
  EXPECT_EQ(r.transfers.memsets.count, 1u);
  EXPECT_DOUBLE_EQ(r.transfers.memsets.throughput_bps, 50e9);
}

TEST(ReportBuilder, EnergyFromCounterOrIntegratedPower) {
  ReportBuilder b;
  GpuSample s;
  s.gpu = 0;
  int64_t t = 0;
  for (uint64_t mj : {1000, 3000, 6000}) {
    s.ts_ns = t;
    s.energy_mj = mj;
    s.power_mw = 100000;
    b.onGpuSample(s);
    t += 1000000000;
  }
  GpuSample p;
  p.gpu = 1;
  int64_t pt = 0;
  for (uint64_t mw : {100000, 200000, 200000}) {  // trapezoids: 150 J + 200 J
    p.ts_ns = pt;
    p.power_mw = mw;
    b.onGpuSample(p);
    pt += 1000000000;
  }
  Report r = b.build();
  ASSERT_EQ(r.gpus.size(), 2u);
  ASSERT_TRUE(r.gpus[0].energy_j);
  EXPECT_DOUBLE_EQ(*r.gpus[0].energy_j, 5.0);
  EXPECT_EQ(r.gpus[0].energy_source, "counter");
  ASSERT_TRUE(r.gpus[1].energy_j);
  EXPECT_DOUBLE_EQ(*r.gpus[1].energy_j, 350.0);
  EXPECT_EQ(r.gpus[1].energy_source, "power");
  EXPECT_NEAR(r.gpus[1].power_w.avg(), 500.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(r.gpus[1].power_w.max, 200.0);
}

TEST(ReportBuilder, EnergyCounterReadEveryFewSamplesIsCompletedByIntegratedPower) {
  // The sampler reads the energy counter only every few seconds: power covers the time before its
  // first and after its last reading.
  ReportBuilder b;
  GpuSample s;
  s.gpu = 0;
  const std::optional<uint64_t> energy[] = {std::nullopt, 1000, std::nullopt, 4000, std::nullopt};
  for (int i = 0; i < 5; ++i) {
    s.ts_ns = int64_t{i} * 1'000'000'000;
    s.power_mw = 100'000;  // 100 J per second between samples
    s.energy_mj = energy[i];
    b.onGpuSample(s);
  }
  Report r = b.build();
  ASSERT_EQ(r.gpus.size(), 1u);
  ASSERT_TRUE(r.gpus[0].energy_j);
  // 100 J before the first reading, 3 J counted between the readings, 100 J after the last.
  EXPECT_DOUBLE_EQ(*r.gpus[0].energy_j, 203.0);
  EXPECT_EQ(r.gpus[0].energy_source, "counter");
}

TEST(ReportBuilder, ThrottleSharesAndHostPeaks) {
  ReportBuilder b;
  GpuSample s;
  s.throttle = 0x4;  // sw_power_cap, decoded from the bitmask
  b.onGpuSample(s);
  s.throttle = 0;
  b.onGpuSample(s);
  s.throttle.reset();
  s.throttle_reasons = {"sw_power_cap", "gpu_idle"};
  b.onGpuSample(s);
  s.throttle_reasons.clear();
  b.onGpuSample(s);  // reported nothing: not counted
  HostSample h;
  h.ram_used_bytes = 10;
  h.ram_total_bytes = 100;
  b.onHostSample(h);
  h.ram_used_bytes = 30;
  b.onHostSample(h);
  Report r = b.build();
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].throttle_samples, 3u);
  ASSERT_EQ(r.gpus[0].throttle.size(), 2u);
  EXPECT_EQ(r.gpus[0].throttle[0].reason, "sw_power_cap");
  EXPECT_NEAR(r.gpus[0].throttle[0].pct, 200.0 / 3, 1e-9);
  EXPECT_EQ(r.host.ram_peak_bytes, 30u);
}

TEST(ReportBuilder, ScopesNestAndCountInclusiveGpuTime) {
  ReportBuilder b;
  session(b, 0, 1000);
  b.onScopePath({.sid = "", .id = 1, .parent = 0, .name = "outer", .depth = 0});
  b.onScopePath({.sid = "", .id = 2, .parent = 1, .name = "inner", .depth = 1});
  b.onScopePath({.sid = "", .id = 3, .parent = 0, .name = "other", .depth = 0});
  auto begin = [&](uint64_t id, uint32_t p, int64_t ts) {
    ScopeBegin e;
    e.id = id;
    e.path = p;
    e.ts_ns = ts;
    b.onScopeBegin(e);
  };
  auto end = [&](uint64_t id, uint32_t p, int64_t ts) {
    ScopeEnd e;
    e.id = id;
    e.path = p;
    e.ts_ns = ts;
    b.onScopeEnd(e);
  };
  begin(1, 1, 0);
  begin(2, 2, 10);
  end(2, 2, 40);
  begin(3, 2, 50);
  end(3, 2, 60);
  end(1, 1, 100);
  begin(4, 3, 200);  // never ends
  end(99, 3, 300);   // never began
  b.onKernelDef(def(1, "k", {1, 1, 1}, {32, 1, 1}));
  b.onKernel(kernel(1, 0, 10, 2));
  b.onKernel(kernel(1, 10, 30, 2));
  b.onKernel(kernel(1, 30, 35, 1));
  b.onKernel(kernel(1, 40, 47, 0));
  auto copy = [&](uint32_t p, uint64_t bytes, bool memset) {
    MemcpyEvent c;
    c.is_memset = memset;
    c.kind = memset ? CopyKind::Unknown : CopyKind::HtoD;
    c.bytes = bytes;
    c.start_ns = 50;
    c.end_ns = 51;
    c.scope_path = p;
    b.onMemcpy(c);
  };
  copy(2, 100, false);
  copy(1, 20, false);
  copy(1, 7, true);  // memsets are not copies
  copy(0, 5, false);
  Report r = b.build();
  const ScopeSummary& s = r.scopes;
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(s.rows[0].name, "outer");
  EXPECT_EQ(s.rows[1].name, "inner");
  EXPECT_EQ(s.rows[1].depth, 1);
  EXPECT_EQ(s.rows[2].name, "other");
  EXPECT_EQ(s.rows[0].calls, 1u);
  EXPECT_EQ(s.rows[0].total_ns, 100);
  EXPECT_EQ(s.rows[1].calls, 2u);
  EXPECT_EQ(s.rows[1].total_ns, 40);
  EXPECT_EQ(s.rows[1].max_ns, 30);
  EXPECT_EQ(s.rows[0].kernels_self, 1u);
  EXPECT_EQ(s.rows[0].kernels_incl, 3u);
  EXPECT_EQ(s.rows[0].gpu_self_ns, 5);
  EXPECT_EQ(s.rows[0].gpu_incl_ns, 35);
  EXPECT_EQ(s.rows[1].gpu_incl_ns, 30);
  EXPECT_EQ(s.rows[0].copies_self, 1u);
  EXPECT_EQ(s.rows[0].copies_incl, 2u);
  EXPECT_EQ(s.rows[0].copy_bytes_self, 20u);
  EXPECT_EQ(s.rows[0].copy_bytes_incl, 120u);
  EXPECT_EQ(s.rows[1].copy_bytes_incl, 100u);
  EXPECT_EQ(s.rows[2].copies_incl, 0u);
  EXPECT_EQ(s.rows[2].unfinished, 1u);
  EXPECT_EQ(s.unfinished, 1u);
  EXPECT_EQ(s.unmatched_ends, 1u);
  EXPECT_EQ(s.kernels_outside, 1u);
  EXPECT_EQ(s.gpu_outside_ns, 7);
}

TEST(ReportBuilder, SassAndPcAggregatePerFunction) {
  ReportBuilder b;
  b.onKernelDef(def(1, "matmul_row_per_thread(const float*)", {2, 1, 1}, {256, 1, 1}));
  SassMetric m;
  m.func = "_Zmatmul_row_per_thread(const float*)";
  m.pc = 0x2a0;
  m.inst_executed = 12042560 - 42560;
  m.thread_inst_executed = 32 * m.inst_executed;
  m.sectors_global = 69468160 - 68160;
  m.sectors_global_ideal = 10518528 - 18528;
  b.onSassMetric(m);
  m.pc = 0x2c0;
  m.inst_executed = 42560;
  m.thread_inst_executed = 32 * 42560;
  m.sectors_global = 68160;
  m.sectors_global_ideal = 18528;
  b.onSassMetric(m);
  PcSample p;
  p.func = m.func;
  p.pc = 0x2a0;
  p.stall = "long_scoreboard";
  p.count = 30;
  b.onPcSample(p);
  p.stall = "wait_not_issued";
  p.count = 70;
  p.pc = 0x2c0;
  b.onPcSample(p);
  Report r = b.build();
  ASSERT_EQ(r.profile.functions.size(), 1u);
  const FunctionProfile& f = r.profile.functions[0];
  EXPECT_EQ(f.name, "matmul_row_per_thread(const float*)");
  EXPECT_EQ(f.sass.inst_executed, 12042560u);
  EXPECT_EQ(f.sass.sectors_global, 69468160u);
  EXPECT_NEAR(f.sass.memoryEfficiencyPct(), 100.0 * 10518528 / 69468160, 1e-9);  // 15.14%
  EXPECT_DOUBLE_EQ(f.sass.warpEfficiencyPct(), 100.0);
  ASSERT_EQ(f.stalls.size(), 2u);
  EXPECT_EQ(f.stalls[0].label, "Wait (idle)");
  EXPECT_EQ(f.hot[0].pc, 0x2c0u);
  ASSERT_EQ(f.hints.size(), 1u);
  EXPECT_EQ(f.hints[0].text,
            "Low memory efficiency (15%). Make accesses coalesced, or tile through shared memory.");
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("      Memory Efficiency:               15.1%\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      Warp Efficiency:            32.0 / 32 (100.0%)\n"), std::string::npos)
      << text;
}

TEST(ReportBuilder, RangeCountersRenderWithTheWaitNsCaveat) {
  ReportBuilder b;
  session(b, 0, 1'000'000'000);
  RangeCounters rc;
  rc.range = "train_step";
  rc.path = 1;
  rc.metrics = {{"gpu__time_duration.sum", 2885824}, {"l1tex__t_sector_hit_rate.pct", 4.2115}};
  b.onRangeCounters(rc);
  Report r = b.build();
  ASSERT_EQ(r.profile.ranges.size(), 1u);
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("  Range Profiler Counters:"), std::string::npos) << text;
  EXPECT_NE(text.find("CUPTI's own ~80 us"), std::string::npos) << text;
  EXPECT_NE(text.find("    train_step\n"), std::string::npos) << text;
  // Counters carry their units: a duration in ns reads as time, a .pct as a percentage.
  EXPECT_NE(
      text.find("      gpu__time_duration.sum                                          2.89 ms\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("      l1tex__t_sector_hit_rate.pct                                     4.21 %\n"),
      std::string::npos)
      << text;
}

// Per-kernel ranges are shown per scope and kernel, with their launch count, in text and JSON.
TEST(ReportBuilder, PerKernelRangesNameTheirKernel) {
  ReportBuilder b;
  session(b, 0, 1'000'000'000);
  for (double t : {3000.0, 5000.0}) {
    RangeCounters rc;
    rc.range = "train_step";
    rc.kernel = "void addOne<float>(float*, int)";
    rc.path = 1;
    rc.metrics = {{"gpu__time_duration.sum", t}};
    b.onRangeCounters(rc);
  }
  Report r = b.build();
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("    train_step  kernel addOne<float>  (2 launches)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("gpu__time_duration.sum                                          8.00 us"),
            std::string::npos)
      << text;
  std::string json = renderJson(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(json.find("\"kernel\": \"void addOne<float>(float*, int)\""), std::string::npos)
      << json;
}

// A scope profiled twice, with its traced kernels: one row with the instance count, .sum totals,
// rates averaged, and the scope's kernel time from the trace beside it.
TEST(ReportBuilder, RangeRowsJoinTheScopesTracedKernels) {
  ReportBuilder b;
  session(b, 0, 1'000'000);
  b.onScopePath({.sid = "", .id = 1, .parent = 0, .name = "train_step", .depth = 0});
  for (uint64_t call = 0; call < 2; ++call) {
    ScopeBegin begin;
    begin.id = call + 1;
    begin.path = 1;
    begin.ts_ns = static_cast<int64_t>(call) * 1000;
    b.onScopeBegin(begin);
    ScopeEnd end;
    end.id = call + 1;
    end.path = 1;
    end.ts_ns = begin.ts_ns + 900;
    b.onScopeEnd(end);
    RangeCounters rc;
    rc.range = "train_step";
    rc.path = 1;
    rc.metrics = {{"gpu__time_duration.sum", 100'000},
                  {"l1tex__t_sector_hit_rate.pct", call ? 60.0 : 40.0}};
    b.onRangeCounters(rc);
  }
  b.onKernelDef(def(1, "k", {1, 1, 1}, {32, 1, 1}));
  b.onKernel(kernel(1, 100, 20'100, 1));
  b.onKernel(kernel(1, 1100, 21'100, 1));
  Report r = b.build();
  ASSERT_EQ(r.profile.ranges.size(), 1u);
  EXPECT_EQ(r.profile.ranges[0].instances, 2u);
  EXPECT_EQ(r.profile.ranges[0].path, 1u);
  EXPECT_DOUBLE_EQ(r.profile.ranges[0].metrics.at("gpu__time_duration.sum"), 200'000);
  EXPECT_DOUBLE_EQ(r.profile.ranges[0].metrics.at("l1tex__t_sector_hit_rate.pct"), 50);
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("    train_step  (2 ranges)\n"), std::string::npos) << text;
  EXPECT_NE(
      text.find(
          "      kernels in this scope (trace, all calls): 2, 40.00 us GPU time in 2 calls\n"),
      std::string::npos)
      << text;
}

// Sync events: per kind, by time, and the scopes that waited longest; shown only when recorded.
TEST(ReportBuilder, HostWaitsPerKindAndScope) {
  {
    ReportBuilder b;
    session(b, 0, 1'000'000);
    Report r = b.build();
    EXPECT_FALSE(r.syncs.enabled);
    std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
    EXPECT_EQ(text.find("Host Waits"), std::string::npos) << text;
    EXPECT_EQ(renderJson(r, {.top_n = 10, .generated_at = "fixed"}).find("\"syncs\""),
              std::string::npos);
  }
  ReportBuilder b;
  SessionStart start;
  start.sid = "s";
  start.start_ns = 0;
  start.options["enable_sync_events"] = "true";
  b.onSessionStart(start);
  b.onScopePath({.sid = "", .id = 1, .parent = 0, .name = "train_step", .depth = 0});
  b.onScopePath({.sid = "", .id = 2, .parent = 1, .name = "loss", .depth = 1});
  auto wait = [&](SyncKind kind, int64_t start_ns, int64_t ns, uint32_t scope) {
    SyncEvent e;
    e.kind = kind;
    e.start_ns = start_ns;
    e.end_ns = start_ns + ns;
    e.scope_path = scope;
    b.onSync(e);
  };
  wait(SyncKind::StreamSynchronize, 100, 2'000'000, 1);
  wait(SyncKind::StreamSynchronize, 200, 1'000'000, 1);
  wait(SyncKind::ContextSynchronize, 300, 4'000'000, 0);
  wait(SyncKind::EventSynchronize, 400, 1'000, 2);
  Report r = b.build();
  const SyncSummary& s = r.syncs;
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.total_ns, 7'001'000);
  ASSERT_EQ(s.kinds.size(), 3u);
  EXPECT_EQ(s.kinds[0].kind, "context_synchronize");  // by total time
  EXPECT_EQ(s.kinds[1].kind, "stream_synchronize");
  EXPECT_EQ(s.kinds[1].count, 2u);
  EXPECT_EQ(s.kinds[1].max_ns, 2'000'000);
  ASSERT_EQ(s.scopes.size(), 3u);
  EXPECT_EQ(s.scopes[0].path, 0u);
  EXPECT_EQ(s.scopes[1].path, 1u);
  EXPECT_EQ(scopePathName(r.scopes, 2), "train_step/loss");  // nested scopes by their full path
  EXPECT_EQ(scopePathName(r.scopes, 9), "scope #9");
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("4 waits for the GPU, 7.00 ms in all"), std::string::npos) << text;
  EXPECT_NE(text.find("    train_step/loss"), std::string::npos) << text;
  EXPECT_NE(text.find("stream_synchronize"), std::string::npos) << text;
  EXPECT_NE(text.find("    train_step"), std::string::npos) << text;
  EXPECT_NE(text.find("(2 waits)"), std::string::npos) << text;
  EXPECT_NE(text.find("(no scope)"), std::string::npos) << text;
  const std::string json = renderJson(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(json.find("\"syncs\": {"), std::string::npos) << json;
  EXPECT_NE(json.find("\"total_ns\": 7001000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\": \"train_step\""), std::string::npos) << json;
}

// Memory events: counts and bytes per kind, the peak in use (by address), what was never released,
// and the scopes that allocate most.
TEST(ReportBuilder, AllocationsPeakAndScopes) {
  ReportBuilder b;
  SessionStart start;
  start.sid = "s";
  start.options["enable_memory_events"] = "true";
  b.onSessionStart(start);
  b.onScopePath({.sid = "", .id = 1, .parent = 0, .name = "step", .depth = 0});
  auto event = [&](bool is_free, uint64_t address, uint64_t bytes, int64_t ts, uint32_t scope,
                   const char* kind = "device") {
    MemoryEvent e;
    e.is_free = is_free;
    e.address = address;
    e.bytes = bytes;
    e.ts_ns = ts;
    e.scope_path = scope;
    e.memory_kind = kind;
    b.onMemory(e);
  };
  event(false, 0x1000, 100, 1, 0);
  event(false, 0x2000, 50, 2, 1);
  event(true, 0x2000, 50, 3, 1);
  event(false, 0x3000, 70, 4, 1);  // 170 in use, above the 150 before the release
  event(true, 0x9999, 0, 5, 0);    // a release whose allocation was not recorded
  event(false, 0x4000, 8, 6, 0, "pinned");
  Report r = b.build();
  const MemorySummary& m = r.memory;
  EXPECT_TRUE(m.enabled);
  EXPECT_EQ(m.allocs, 4u);
  EXPECT_EQ(m.frees, 2u);
  EXPECT_EQ(m.bytes, 228u);
  EXPECT_EQ(m.peak_in_use, 178u);
  EXPECT_EQ(m.peak_ts_ns, 6);
  EXPECT_EQ(m.in_use_at_end, 178u);
  ASSERT_EQ(m.kinds.size(), 2u);
  EXPECT_EQ(m.kinds[0].kind, "device");
  EXPECT_EQ(m.kinds[0].allocs, 3u);
  EXPECT_EQ(m.kinds[0].frees, 2u);
  EXPECT_EQ(m.kinds[0].largest, 100u);
  ASSERT_EQ(m.scopes.size(), 2u);
  EXPECT_EQ(m.scopes[0].allocs, 2u);  // both scopes have 2: the first seen (path 0) stays first
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("  Allocations:          4 (228 B), 2 releases\n"
                      "  Peak In Use:          178 B (178 B never released)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pinned"), std::string::npos) << text;
  EXPECT_NE(text.find("    step"), std::string::npos) << text;
  EXPECT_NE(renderJson(r, {.top_n = 10, .generated_at = "fixed"}).find("\"peak_in_use\": 178"),
            std::string::npos);
  ReportBuilder plain;
  session(plain, 0, 10);
  Report none = plain.build();
  EXPECT_EQ(renderText(none, {.top_n = 10, .generated_at = "fixed"}).find("Allocations"),
            std::string::npos);
}

TEST(ReportBuilder, DurationFallsBackToTheLastRecord) {
  ReportBuilder b;
  SessionStart s;
  s.start_ns = 1000;
  b.onSessionStart(s);
  b.onKernelDef(def(1, "k", {1, 1, 1}, {32, 1, 1}));
  b.onKernel(kernel(1, 2000, 5000));
  Report r = b.build();
  EXPECT_FALSE(r.session.ended);
  EXPECT_EQ(r.session.duration_ns, 4000);
  EXPECT_DOUBLE_EQ(r.kernels.busy_pct, 75.0);
}

TEST(ReportBuilder, PastTheExactLimitPercentilesSayApprox) {
  ReportBuilder b({.exact_samples_per_group = 1000, .exact_samples_total = 1 << 20});
  session(b, 0, 100000000);
  b.onKernelDef(def(1, "k", {1, 1, 1}, {32, 1, 1}));
  for (int64_t i = 0; i < 5000; ++i) b.onKernel(kernel(1, 10000 * i, 10000 * i + 1000 + i % 100));
  Report r = b.build();
  EXPECT_TRUE(r.kernels.all.approximate);
  EXPECT_TRUE(r.kernels.groups[0].durations.approximate);
  EXPECT_EQ(r.kernels.all.min_ns, 1000);  // exact even so
  EXPECT_EQ(r.kernels.all.max_ns, 1099);
  EXPECT_NEAR(r.kernels.all.median_ns, 1049.5, 1049.5 * 0.005);
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("  Median Duration:      1.05 us (approx.)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  Avg Duration:         1.05 us\n"), std::string::npos) << text;
}

TEST(ReportBuilder, ARequestedCarveoutIsShownBesideTheOccupancy) {
  for (const std::optional<int> carveout : {std::optional<int>{}, std::optional<int>{25}}) {
    ReportBuilder b;
    session(b, 0, 1000000);
    KernelDef d = def(1, "sgemm", {1000, 1, 1}, {128, 1, 1});
    d.carveout_pct = carveout;
    b.onKernelDef(d);
    b.onKernel(kernel(1, 0, 900000));
    Report r = b.build();
    const std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
    const std::string json = renderJson(r, {.top_n = 10, .generated_at = "fixed"});
    const std::string line = "    SMem Carveout:";
    if (carveout) {
      const size_t at = text.find(line);
      ASSERT_NE(at, std::string::npos) << text;
      const std::string shown = text.substr(at, text.find('\n', at) - at);
      EXPECT_NE(shown.find(" 25% of the SM's shared memory (requested)"), std::string::npos)
          << shown;
      EXPECT_NE(json.find("\"carveout_pct\": 25"), std::string::npos) << json;
    } else {
      EXPECT_EQ(text.find(line), std::string::npos) << text;
      EXPECT_EQ(json.find("carveout_pct"), std::string::npos) << json;
    }
  }
}

TEST(ReportBuilder, HintsNameTheLimitingResourceAndDivergence) {
  ReportBuilder b;
  session(b, 0, 1000000);
  KernelDef d = def(1, "sgemm", {1000, 1, 1}, {128, 1, 1});
  d.num_regs = 122;
  d.local_bytes = 64;
  d.occupancy = Occupancy{1.0 / 3, 1.0 / 3, 2.0 / 3, 1, 1, 4, LimitingResource::Registers};
  b.onKernelDef(d);
  b.onKernel(kernel(1, 0, 900000));
  SassMetric m;
  m.func = "_Zsgemm";
  m.inst_executed = 1000;
  m.thread_inst_executed = 16300;  // 16.3 threads per warp instruction
  b.onSassMetric(m);
  Report r = b.build();
  std::vector<std::string> kinds;
  for (const Hint& h : r.hints) kinds.push_back(h.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"divergence", "occupancy", "local_memory"}));
  EXPECT_NE(r.hints[1].text.find("occupancy 33.3% is limited by registers (122 per thread)"),
            std::string::npos)
      << r.hints[1].text;
  EXPECT_NE(r.hints[1].text.find("__launch_bounds__"), std::string::npos);
  ASSERT_EQ(r.profile.functions.size(), 1u);
  ASSERT_EQ(r.profile.functions[0].hints.size(), 1u);
  EXPECT_EQ(r.profile.functions[0].hints[0].text.substr(0, 45),
            "Low warp efficiency (51%, 16.3 of 32 threads ");
}

TEST(ReportBuilder, DropsAreCountedShownAndHinted) {
  ReportBuilder b;
  SessionStart s;
  b.onSessionStart(s);
  SessionEnd e;
  e.end_ns = 1000;
  e.dropped = {{"activity", 12}, {"scope", 0}};
  b.onSessionEnd(e);
  e.dropped = {{"activity", 10}, {"launch", 3}};  // another channel's copy: merged by max
  b.onSessionEnd(e);
  Report r = b.build();
  EXPECT_EQ(r.collection.dropped.at("activity"), 12u);
  EXPECT_EQ(r.collection.dropped.at("launch"), 3u);
  ASSERT_FALSE(r.hints.empty());
  EXPECT_EQ(r.hints.back().kind, "dropped");
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed", .verbose = true});
  EXPECT_NE(text.find("  Dropped Records:      15\n    activity:           12\n"),
            std::string::npos)
      << text;
}

TEST(ReportBuilder, EmptySessionRendersEverySection) {
  ReportBuilder b;
  Report r = b.build();
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  for (const char* line :
       {"  No kernels recorded.", "  No memory transfers recorded.",
        "  No system samples recorded.", "  No scopes recorded.", "  No hints: nothing stood out."})
    EXPECT_NE(text.find(line), std::string::npos) << line;
  std::string json = renderJson(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '\n');
}

}  // namespace
}  // namespace gpufl::report

namespace gpufl::report {
namespace {

// Profile / SASS Analysis follows the report's kernel order (by GPU time), and leaves out hot
// instructions too rare to say where time goes (under 1% of the function's samples).
TEST(ReportText, ProfileInKernelOrderWithoutNegligibleHotInstructions) {
  ReportBuilder b;
  session(b, 0, 1'000'000);
  b.onKernelDef(def(1, "alpha(int)", {264, 1, 1}, {256, 1, 1}));
  b.onKernelDef(def(2, "beta(int)", {264, 1, 1}, {256, 1, 1}));
  b.onKernel(kernel(1, 0, 100));    // alpha: 100 ns
  b.onKernel(kernel(2, 200, 900));  // beta: 700 ns, first by GPU time
  PcSample p;
  p.func = "_Zalpha(int)";  // alpha's samples arrive first
  p.pc = 0x10;
  p.stall = "long_scoreboard";
  p.count = 5000;
  b.onPcSample(p);
  p.func = "_Zbeta(int)";
  p.count = 999;
  p.pc = 0x20;
  b.onPcSample(p);
  p.pc = 0x30;  // the prologue: 1 of 1,000 samples, 0.1%
  p.count = 1;
  b.onPcSample(p);
  Report r = b.build();
  const std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  const size_t profile = text.find("Profile / SASS Analysis");
  ASSERT_NE(profile, std::string::npos) << text;
  const size_t beta = text.find("  beta", profile), alpha = text.find("  alpha", profile);
  ASSERT_NE(beta, std::string::npos) << text;
  ASSERT_NE(alpha, std::string::npos) << text;
  EXPECT_LT(beta, alpha) << text;
  EXPECT_NE(text.find("/*0x20*/"), std::string::npos) << text;
  EXPECT_EQ(text.find("/*0x30*/"), std::string::npos) << text;
}

// A scope whose kernels ran longer than the scope itself (asynchronous launches) says why.
TEST(ReportText, GpuTimeBeyondWallTimeIsExplained) {
  ReportBuilder b;
  session(b, 0, 10'000'000);
  b.onKernelDef(def(1, "k(int)", {264, 1, 1}, {256, 1, 1}));
  ScopePath path;
  path.id = 1;
  path.name = "step";
  b.onScopePath(path);
  ScopeBegin begin;
  begin.path = 1;
  begin.id = 7;
  begin.ts_ns = 0;
  b.onScopeBegin(begin);
  ScopeEnd end;
  end.path = 1;
  end.id = 7;
  end.ts_ns = 1000;  // 1 us of wall time
  b.onScopeEnd(end);
  b.onKernel(kernel(1, 500, 2'000'500, 1));  // 2 ms of GPU time launched inside it
  const std::string text = renderText(b.build(), {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("GPU time exceeds wall time in step (2.00 ms GPU, 1.00 us wall)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("launches are asynchronous"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpufl::report
