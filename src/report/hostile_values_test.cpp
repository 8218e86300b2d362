// The report on values a log may hold but no real program produces: times at the ends of int64
// (signed overflow there is undefined behaviour, and a wrapped sum once printed "Total GPU Time: -1
// ns") and names with terminal control characters (which must not reach a terminal raw).
#include <gtest/gtest.h>

#include <cctype>
#include <limits>
#include <string>

#include "report/aggregate/report_builder.hpp"
#include "report/report.hpp"

namespace gpufl::report {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

KernelDef kernelDef(uint32_t id, const std::string& name) {
  KernelDef d;
  d.id = id;
  d.name = d.demangled = name;
  d.grid = {1, 1, 1};
  d.block = {32, 1, 1};
  return d;
}

// Every aggregation that adds or subtracts times, fed the extremes.
Report extremeReport() {
  ReportBuilder b;
  SessionStart start;
  start.sid = "s";
  start.start_ns = kMin + 1;
  b.onSessionStart(start);
  b.onKernelDef(kernelDef(1, "k"));
  ScopePath path;
  path.id = 1;
  path.name = "outer";
  b.onScopePath(path);
  ScopePath child = path;
  child.id = 2;
  child.parent = 1;
  child.name = "inner";
  b.onScopePath(child);
  for (int i = 0; i < 3; ++i) {
    KernelEvent k;
    k.def_id = 1;
    k.start_ns = kMin + 1;
    k.end_ns = kMax;
    k.scope_path = i == 0 ? 0 : static_cast<uint32_t>(i);
    b.onKernel(k);
    MemcpyEvent m;
    m.bytes = 1;
    m.start_ns = kMin + 1;
    m.end_ns = kMax;
    b.onMemcpy(m);
    SyncEvent s;
    s.start_ns = kMin + 1;
    s.end_ns = kMax;
    b.onSync(s);
    ScopeBegin begin;
    begin.id = static_cast<uint64_t>(i + 1);
    begin.path = 2;
    begin.ts_ns = kMin + 1;
    b.onScopeBegin(begin);
    ScopeEnd end;
    end.id = begin.id;
    end.ts_ns = kMax;
    b.onScopeEnd(end);
  }
  for (int64_t ts :
       {kMin + 1, kMax}) {  // a sample far from every kernel: the nearest-sample search
    GpuSample g;
    g.ts_ns = ts;
    g.power_mw = 100000;
    g.clk_sm = 1980;
    b.onGpuSample(g);
  }
  SessionEnd end;
  end.end_ns = kMax;
  b.onSessionEnd(end);
  return b.build();
}

TEST(HostileValues, ExtremeTimesSaturateInsteadOfWrapping) {
  const Report r = extremeReport();
  EXPECT_EQ(r.session.duration_ns, kMax);
  EXPECT_EQ(r.kernels.total_ns, kMax);
  EXPECT_EQ(r.kernels.all.max_ns, kMax);
  EXPECT_GE(r.kernels.busy_ns, 0);
  ASSERT_FALSE(r.kernels.groups.empty());
  EXPECT_EQ(r.kernels.groups[0].durations.total_ns, kMax);
  EXPECT_EQ(r.transfers.directions.at(0).total_ns, kMax);
  EXPECT_EQ(r.syncs.total_ns, kMax);
  for (const ScopeRow& row : r.scopes.rows) {
    EXPECT_GE(row.total_ns, 0) << row.name;
    EXPECT_GE(row.gpu_incl_ns, 0) << row.name;
  }
  EXPECT_GE(r.scopes.gpu_outside_ns, 0);
  ReportOptions options;
  options.generated_at = "fixed";
  const std::string text = renderText(r, options);
  EXPECT_EQ(text.find("Total GPU Time:       -"), std::string::npos) << text;
  EXPECT_NE(text.find("Total GPU Time:       9223372036.85 s"), std::string::npos) << text;
  for (size_t at = text.find(" -"); at != std::string::npos; at = text.find(" -", at + 1))
    EXPECT_FALSE(std::isdigit(static_cast<unsigned char>(text[at + 2]))) << text.substr(at, 40);
  EXPECT_FALSE(renderJson(r, options).empty());
}

std::string withControls(const std::string& what) {
  return what +
         "\x1b[2J\x1b]0;title\x07\nsecond line\r\t\xC2\x9B"
         "1m\x9b";
}

bool hasRawControl(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') continue;  // the report's own line breaks
    if (c < 0x20 || c == 0x7f || c == 0x9b) return true;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f) return true;
  }
  return false;
}

TEST(HostileValues, NamesWithControlCharactersAreEscapedInText) {
  ReportBuilder b;
  SessionStart start;
  start.sid = "s";
  start.app = withControls("app");
  start.session_id = withControls("id");
  start.host = withControls("host");
  DeviceInfo dev;
  dev.name = withControls("gpu");
  start.devices.push_back(dev);
  b.onSessionStart(start);
  b.onKernelDef(kernelDef(1, withControls("kernel")));
  ScopePath path;
  path.id = 1;
  path.name = withControls("scope");
  b.onScopePath(path);
  KernelEvent k;
  k.def_id = 1;
  k.start_ns = 10;
  k.end_ns = 20;
  k.scope_path = 1;
  b.onKernel(k);
  Note note;
  note.feature = withControls("feature");
  note.status = "off";
  note.reason = withControls("reason");
  b.onNote(note);
  BenchmarkResult bench;
  bench.name = withControls("bench");
  bench.shape = withControls("shape");
  bench.warnings = {withControls("warning")};
  b.onBenchmark(bench);
  ReportOptions options;
  options.generated_at = "fixed";
  const Report r = b.build();
  const std::string text = renderText(r, options);
  EXPECT_FALSE(hasRawControl(text)) << text;
  EXPECT_NE(text.find("Application:          app\\x1b[2J\\x1b]0;title\\x07\\nsecond line\\r\\t"
                      "\\u009b1m\\x9b\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("second line\n"), std::string::npos);  // a name never breaks a line
  const std::string json = renderJson(r, options);
  EXPECT_FALSE(hasRawControl(json)) << json;  // the JSON writer escapes them as \u00XX
}

}  // namespace
}  // namespace gpufl::report
