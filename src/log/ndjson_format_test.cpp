#include "log/ndjson_format.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "log/json_fields.hpp"

namespace gpufl::log {
namespace {

// Parses one formatted line with an independent, strict parser (it also rejects invalid UTF-8) and
// returns its keys in order; fails the test when the line is not exactly one '\n'-terminated JSON
// object.
std::vector<std::string> keysOf(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  static simdjson::dom::parser parser;
  simdjson::dom::object obj;
  const auto err = parser.parse(line).get(obj);
  EXPECT_EQ(err, simdjson::SUCCESS) << line;
  std::vector<std::string> keys;
  if (err) return keys;
  for (auto [k, v] : obj) keys.emplace_back(k);
  return keys;
}

std::set<std::string> keySet(const std::string& line) {
  const auto k = keysOf(line);
  return {k.begin(), k.end()};
}

KernelEvent kernel(uint64_t corr, int64_t start, int64_t end, std::string sid = "0a1b2c3d") {
  KernelEvent e;
  e.sid = std::move(sid);
  e.def_id = 3;
  e.stream = 7;
  e.scope_path = 2;
  e.correlation_id = corr;
  e.start_ns = start;
  e.end_ns = end;
  return e;
}

TEST(NdjsonFormat, KernelEventAbsoluteThenDelta) {
  KernelDeltaEncoder delta;
  std::string out;
  formatKernelEvent(out, kernel(100, 5000, 6500), delta);
  formatKernelEvent(out, kernel(102, 9000, 9800), delta);
  formatKernelEvent(out, kernel(101, 8000, 8300), delta);  // delivered out of start order
  EXPECT_EQ(out,
            "{\"type\":\"kernel_event\",\"sid\":\"0a1b2c3d\",\"dur_ns\":1500,\"k\":3,\"stream\":7,"
            "\"scope\":2,"
            "\"corr\":100,\"start_ns\":5000}\n"
            "{\"type\":\"kernel_event\",\"sid\":\"0a1b2c3d\",\"dur_ns\":800,\"k\":3,\"stream\":7,"
            "\"scope\":2,"
            "\"dcorr\":2,\"dt_ns\":4000}\n"
            "{\"type\":\"kernel_event\",\"sid\":\"0a1b2c3d\",\"dur_ns\":300,\"k\":3,\"stream\":7,"
            "\"scope\":2,"
            "\"dcorr\":-1,\"dt_ns\":-1000}\n");
}

TEST(NdjsonFormat, KernelEventOptionalsAndAbsoluteForm) {
  KernelEvent e = kernel(9, 100, 164);
  e.stack_id = 4;
  e.graph_id = 2;
  e.instrumented = true;
  std::string out;
  formatKernelEventAbsolute(out, e);
  EXPECT_EQ(out,
            "{\"type\":\"kernel_event\",\"sid\":\"0a1b2c3d\",\"dur_ns\":64,\"k\":3,\"stream\":7,"
            "\"scope\":2,"
            "\"stack\":4,\"graph\":2,\"instr\":true,\"corr\":9,\"start_ns\":100,\"end_ns\":164}\n");
}

TEST(NdjsonFormat, KernelEventResynchronisesEvery1024) {
  KernelDeltaEncoder delta;
  std::string out;
  std::vector<size_t> absolute;
  for (uint64_t i = 0; i < 3000; ++i) {
    out.clear();
    formatKernelEvent(out, kernel(i + 1, int64_t(i) * 64, int64_t(i) * 64 + 32), delta);
    if (out.find("\"start_ns\"") != std::string::npos) {
      // After the first, a resync point also gives its differences (a reader places lost kernels
      // with them).
      EXPECT_NE(out.find(std::string(i == 0 ? "" : "\"dcorr\":1,\"dt_ns\":64,") + "\"corr\":" +
                         std::to_string(i + 1) + ",\"start_ns\":" + std::to_string(i * 64) + "}"),
                std::string::npos)
          << out;
      EXPECT_EQ(i == 0, out.find("dt_ns") == std::string::npos) << out;
      absolute.push_back(i);
    } else {
      EXPECT_NE(out.find("\"dcorr\":1,\"dt_ns\":64}"), std::string::npos) << out;
    }
  }
  EXPECT_EQ(absolute, (std::vector<size_t>{0, 1024, 2048}));
  out.clear();
  delta.appendChainEnds(out);
  EXPECT_EQ(out, R"({"type":"kernel_chain","sid":"0a1b2c3d","corr":3000,"start_ns":191936})"
                 "\n");
}

TEST(NdjsonFormat, KernelDeltaIsPerSessionAndResets) {
  KernelDeltaEncoder delta;
  std::string out;
  formatKernelEvent(out, kernel(1, 1000, 1100, "aaaaaaaa"), delta);
  formatKernelEvent(out, kernel(50, 7000, 7100, "bbbbbbbb"), delta);  // another session: absolute
  formatKernelEvent(out, kernel(2, 2000, 2100, "aaaaaaaa"), delta);   // relative to aaaaaaaa's last
  EXPECT_NE(
      out.find("\"sid\":\"bbbbbbbb\",\"dur_ns\":100,\"k\":3,\"stream\":7,\"scope\":2,\"corr\":50,"
               "\"start_ns\":7000}"),
      std::string::npos);
  EXPECT_NE(
      out.find("\"sid\":\"aaaaaaaa\",\"dur_ns\":100,\"k\":3,\"stream\":7,\"scope\":2,\"dcorr\":1,"
               "\"dt_ns\":1000}"),
      std::string::npos);
  delta.reset();  // a new segment
  out.clear();
  formatKernelEvent(out, kernel(3, 3000, 3100, "aaaaaaaa"), delta);
  EXPECT_NE(out.find("\"corr\":3,\"start_ns\":3000}"), std::string::npos) << out;
}

TEST(NdjsonFormat, SessionStartWithAndWithoutDevices) {
  SessionStart s;
  s.sid = "deadbeef";
  s.session_id = "deadbeef-0000-4000-8000-000000000001";
  s.app = "smoke \"test\"";
  s.pid = 42;
  s.host = "h";
  s.version = "0.1.0";
  s.engine = Engine::PcSamplingWithSass;
  s.start_ns = 10;
  s.start_unix_ns = 20;
  s.options = {{"system_sample_rate_ms", "100"}, {"log_path", "\"./x\""}, {"bad", "./not json"}};
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  s.devices = {d};
  std::string out;
  formatSessionStart(out, s, false);
  EXPECT_EQ(
      out,
      "{\"type\":\"session_start\",\"sid\":\"deadbeef\",\"schema\":1,\"session_id\":"
      "\"deadbeef-0000-4000-8000-000000000001\",\"app\":\"smoke "
      "\\\"test\\\"\",\"pid\":42,\"host\":\"h\","
      "\"version\":\"0.1.0\",\"engine\":\"PcSamplingWithSass\",\"start_ns\":10,\"start_unix_ns\":"
      "20,"
      "\"options\":{\"bad\":\"./not json\",\"log_path\":\"./x\",\"system_sample_rate_ms\":100}}\n");
  out.clear();
  formatSessionStart(out, s, true);
  const std::set<std::string> expected = {
      "type",    "sid",    "schema",   "session_id",    "app",     "pid",    "host",
      "version", "engine", "start_ns", "start_unix_ns", "options", "devices"};
  EXPECT_EQ(keySet(out), expected);
  simdjson::dom::parser p;
  simdjson::dom::object dev = p.parse(out)["devices"].at(0).get_object();
  std::set<std::string> dev_keys;
  for (auto [k, v] : dev) dev_keys.emplace(k);
  const std::set<std::string> expected_dev = {"id",
                                              "name",
                                              "uuid",
                                              "cc_major",
                                              "cc_minor",
                                              "sm_count",
                                              "warp_size",
                                              "max_threads_per_sm",
                                              "max_threads_per_block",
                                              "max_blocks_per_sm",
                                              "regs_per_sm",
                                              "regs_per_block",
                                              "smem_per_sm_bytes",
                                              "smem_per_block_bytes",
                                              "smem_per_block_optin_bytes",
                                              "smem_reserved_per_block_bytes",
                                              "l2_bytes",
                                              "global_mem_bytes",
                                              "mem_bus_bits",
                                              "clock_khz",
                                              "mem_clock_khz"};
  EXPECT_EQ(dev_keys, expected_dev);
}

TEST(NdjsonFormat, DeviceRecordHasTheDeviceFieldsInline) {
  DeviceEvent e;
  e.sid = "s";
  e.device.id = 1;
  e.device.name = "NVIDIA H200";
  std::string out;
  formatRecord(out, e);
  EXPECT_EQ(
      out.rfind(
          "{\"type\":\"device\",\"sid\":\"s\",\"id\":1,\"name\":\"NVIDIA H200\",\"uuid\":\"\",", 0),
      0u)
      << out;
  std::set<std::string> keys = keySet(out);
  keys.erase("type");
  keys.erase("sid");
  SessionStart s;
  s.devices = {e.device};
  out.clear();
  formatSessionStart(out, s, true);
  simdjson::dom::parser p;
  std::set<std::string> element_keys;
  for (auto [k, v] : p.parse(out)["devices"].at(0).get_object()) element_keys.emplace(k);
  EXPECT_EQ(keys, element_keys);
}

TEST(NdjsonFormat, SessionEndNoteAndScopes) {
  SessionEnd e;
  e.sid = "s";
  e.end_ns = 9;
  e.kernels = 3;
  e.dropped = {{"scope", 0}, {"activity", 2}};
  e.overhead_ns = {{"writer", 77}};
  std::string out;
  formatRecord(out, e);
  EXPECT_EQ(
      out,
      "{\"type\":\"session_end\",\"sid\":\"s\",\"end_ns\":9,\"kernels\":3,\"memcpys\":0,\"scopes\":"
      "0,"
      "\"dropped\":{\"activity\":2,\"scope\":0},\"overhead_ns\":{\"writer\":77},\"cpu_time_ns\":0,"
      "\"buffers\":0,\"bytes_written\":0}\n");

  out.clear();
  formatRecord(out, Note{"s", 5, "nvml", "off", "libnvidia-ml.so.1: not found"});
  EXPECT_EQ(out,
            "{\"type\":\"note\",\"sid\":\"s\",\"ts_ns\":5,\"feature\":\"nvml\",\"status\":\"off\","
            "\"reason\":\"libnvidia-ml.so.1: not found\"}\n");

  out.clear();
  formatRecord(out, ScopePath{"s", 2, 1, "forward", 1});
  formatRecord(out, ScopeBegin{"s", 17, 2, 4242, 1000, "forward", "", 1});
  formatRecord(out, ScopeEnd{"s", 17, 2, 4242, 2000});
  EXPECT_EQ(
      out,
      "{\"type\":\"scope_path\",\"sid\":\"s\",\"p\":2,\"parent\":1,\"name\":\"forward\",\"depth\":"
      "1}\n"
      "{\"type\":\"scope_begin\",\"sid\":\"s\",\"id\":17,\"tid\":4242,\"ts_ns\":1000,\"p\":2,"
      "\"name\":\"forward\",\"tag\":\"\",\"depth\":1}\n"
      "{\"type\":\"scope_end\",\"sid\":\"s\",\"id\":17,\"tid\":4242,\"ts_ns\":2000,\"p\":2}\n");
}

TEST(NdjsonFormat, KernelDefWithAndWithoutOccupancy) {
  KernelDef d;
  d.sid = "s";
  d.id = 1;
  d.name = "_Z4gemmPfS_";
  d.demangled = "gemm(float*, float*)";
  d.grid = {128, 2, 1};
  d.block = {256, 1, 1};
  d.num_regs = 64;
  std::string out;
  formatRecord(out, d);
  EXPECT_EQ(
      out,
      "{\"type\":\"kernel_def\",\"sid\":\"s\",\"k\":1,\"name\":\"_Z4gemmPfS_\",\"demangled\":"
      "\"gemm(float*, "
      "float*)\",\"device\":0,\"context\":0,\"grid\":\"(128,2,1)\",\"block\":\"(256,1,1)\","
      "\"num_regs\":64,\"static_shared_bytes\":0,\"dyn_shared_bytes\":0,\"local_bytes\":0}\n");
  d.occupancy = Occupancy{0.5, 0.5, 1, 1, 1, 4, LimitingResource::Registers};
  d.waves = 1.0 / 3;
  out.clear();
  formatRecord(out, d);
  EXPECT_NE(
      out.find("\"occupancy\":0.5,\"reg_occupancy\":0.5,\"smem_occupancy\":1,\"warp_occupancy\":1,"
               "\"block_occupancy\":1,\"limiting_resource\":\"registers\",\"max_active_blocks\":4,"
               "\"waves\":0.3333333333333333}"),
      std::string::npos)
      << out;
  keysOf(out);
}

TEST(NdjsonFormat, MemcpyAndMemset) {
  MemcpyEvent m;
  m.sid = "s";
  m.kind = CopyKind::HtoD;
  m.bytes = 4096;
  m.stream = 13;
  m.correlation_id = 8;
  m.start_ns = 100;
  m.end_ns = 350;
  m.src_kind = "pinned";
  m.dst_kind = "device";
  std::string out;
  formatRecord(out, m);
  EXPECT_EQ(
      out,
      "{\"type\":\"memcpy_event\",\"sid\":\"s\",\"corr\":8,\"start_ns\":100,\"kind\":\"HtoD\","
      "\"bytes\":4096,\"device\":0,\"stream\":13,\"scope\":0,\"src_kind\":\"pinned\","
      "\"dst_kind\":\"device\",\"dur_ns\":250}\n");
  MemcpyEvent s;
  s.sid = "s";
  s.is_memset = true;
  s.bytes = 64;
  s.value = 0;
  out.clear();
  formatRecord(out, s);
  EXPECT_EQ(out,
            "{\"type\":\"memset_event\",\"sid\":\"s\",\"corr\":0,\"start_ns\":0,\"bytes\":64,"
            "\"device\":0,"
            "\"stream\":0,\"scope\":0,\"value\":0,\"dur_ns\":0}\n");
}

TEST(NdjsonFormat, SyncEventLeavesOutZeroStreamAndScope) {
  SyncEvent e;
  e.sid = "s";
  e.kind = SyncKind::StreamSynchronize;
  e.stream = 7;
  e.correlation_id = 41;
  e.start_ns = 1000;
  e.end_ns = 4500;
  e.scope_path = 3;
  std::string out;
  formatRecord(out, e);
  EXPECT_EQ(out,
            "{\"type\":\"sync_event\",\"sid\":\"s\",\"corr\":41,\"start_ns\":1000,"
            "\"kind\":\"stream_synchronize\",\"stream\":7,\"scope\":3,\"dur_ns\":3500}\n");
  SyncEvent device_wide;
  device_wide.sid = "s";
  device_wide.kind = SyncKind::ContextSynchronize;
  out.clear();
  formatRecord(out, device_wide);
  EXPECT_EQ(out,
            "{\"type\":\"sync_event\",\"sid\":\"s\",\"corr\":0,\"start_ns\":0,"
            "\"kind\":\"context_synchronize\",\"dur_ns\":0}\n");
}

TEST(NdjsonFormat, MemoryEventAllocAndFree) {
  MemoryEvent e;
  e.sid = "s";
  e.memory_kind = "device";
  e.bytes = 1 << 20;
  e.address = 0x7f0000000000;
  e.device = 1;
  e.correlation_id = 9;
  e.ts_ns = 500;
  e.scope_path = 2;
  std::string out;
  formatRecord(out, e);
  EXPECT_EQ(out,
            "{\"type\":\"memory_event\",\"sid\":\"s\",\"corr\":9,\"ts_ns\":500,\"op\":\"alloc\","
            "\"bytes\":1048576,\"address\":139637976727552,\"device\":1,\"kind\":\"device\","
            "\"scope\":2}\n");
  MemoryEvent f;
  f.sid = "s";
  f.is_free = true;
  f.stream = 5;
  out.clear();
  formatRecord(out, f);
  EXPECT_EQ(out,
            "{\"type\":\"memory_event\",\"sid\":\"s\",\"corr\":0,\"ts_ns\":0,\"op\":\"free\","
            "\"bytes\":0,\"address\":0,\"device\":0,\"stream\":5}\n");
}

TEST(NdjsonFormat, SamplesOmitWhatWasNotRead) {
  GpuSample g;
  g.sid = "s";
  g.ts_ns = 1;
  g.util_gpu = 97;
  g.power_mw = 650000;
  std::string out;
  formatRecord(out, g);
  EXPECT_EQ(out,
            "{\"type\":\"system_sample\",\"sid\":\"s\",\"gpu\":0,\"ts_ns\":1,\"util_gpu\":97,"
            "\"power_mw\":650000}\n");
  g.throttle = 4;
  g.throttle_reasons = {"sw_power_cap"};
  out.clear();
  formatRecord(out, g);
  EXPECT_NE(out.find("\"throttle\":4,\"throttle_reasons\":[\"sw_power_cap\"]}"), std::string::npos);

  HostSample h;
  h.sid = "s";
  h.ts_ns = 2;
  h.cpu_pct = 12.5;
  h.ram_total_bytes = 1024;
  out.clear();
  formatRecord(out, h);
  EXPECT_EQ(out,
            "{\"type\":\"host_sample\",\"sid\":\"s\",\"ts_ns\":2,\"cpu_pct\":12.5,\"ram_total_"
            "bytes\":1024}\n");
}

TEST(NdjsonFormat, DeepRecordsAndBenchmark) {
  std::string out;
  formatRecord(out, SassMetric{"s", "_Z1kv", 16, 2, 100, 3200, 400, 100, "LDG.E R2, [R4]", ""});
  EXPECT_EQ(out,
            "{\"type\":\"sass_metric\",\"sid\":\"s\",\"func\":\"_Z1kv\",\"pc\":16,\"launches\":2,"
            "\"inst_executed\":100,\"thread_inst_executed\":3200,\"sectors_global\":400,"
            "\"sectors_global_ideal\":100,\"sass\":\"LDG.E R2, [R4]\"}\n");
  out.clear();
  formatRecord(out, PcSample{"s", "_Z1kv", 32, "long_scoreboard", 9, "", "k.cu:12"});
  EXPECT_EQ(out,
            "{\"type\":\"pc_sample\",\"sid\":\"s\",\"func\":\"_Z1kv\",\"pc\":32,\"stall\":"
            "\"long_scoreboard\",\"count\":9,\"source\":\"k.cu:12\"}\n");
  out.clear();
  PcSample patched{"s", "_Z1kv", 32, "wait", 1, "", ""};
  patched.patched = true;
  formatRecord(out, patched);
  EXPECT_EQ(out,
            "{\"type\":\"pc_sample\",\"sid\":\"s\",\"func\":\"_Z1kv\",\"pc\":32,\"stall\":"
            "\"wait\",\"count\":1,\"patched\":true}\n");
  out.clear();
  formatRecord(out, RangeCounters{"s", "step/forward", 3, {{"a", 0.1}, {"b", NAN}, {"c", 2e20}}});
  EXPECT_EQ(out,
            "{\"type\":\"range_counters\",\"sid\":\"s\",\"range\":\"step/forward\",\"p\":3,"
            "\"metrics\":{\"a\":0.1,\"b\":null,\"c\":2e+20}}\n");
  out.clear();
  formatRecord(out, RangeCounters{"s", "step", 1, {{"a", 2}}, "k(int)"});
  EXPECT_EQ(out,
            "{\"type\":\"range_counters\",\"sid\":\"s\",\"range\":\"step\",\"kernel\":\"k(int)\","
            "\"p\":1,\"metrics\":{\"a\":2}}\n");
  out.clear();
  formatRecord(out, StackDef{"s", 5, {"main+0x10 (a.out)", "f\x01"}});
  EXPECT_EQ(out,
            "{\"type\":\"stack\",\"sid\":\"s\",\"id\":5,\"frames\":[\"main+0x10 "
            "(a.out)\",\"f\\u0001\"]}\n");
  out.clear();
  BenchmarkResult bench{
      .sid = "s", .name = "gemm", .reps = 10, .median_ns = 5, .min_ns = 4, .max_ns = 9};
  bench.clk_sm_max_mhz = 1980;
  bench.warnings = {"w"};
  formatRecord(out, bench);
  // Unset optionals and OmitDefault fields (shape, dtype, method, flush_l2, rates) stay off the
  // line.
  EXPECT_EQ(out,
            "{\"type\":\"benchmark\",\"sid\":\"s\",\"name\":\"gemm\",\"device\":0,\"ts_ns\":0,"
            "\"reps\":10,\"warmup_reps\":0,\"ops_per_rep\":1,\"median_ns\":5,\"min_ns\":4,"
            "\"p10_ns\":0,\"p90_ns\":0,\"max_ns\":9,\"mean_ns\":0,\"clk_sm_max_mhz\":1980,"
            "\"warnings\":[\"w\"]}\n");
}

TEST(NdjsonFormat, HostileStringsStillParse) {
  const std::string nasty = std::string("a\"b\\c\n\x01\xff\xc3", 9);
  std::string out;
  formatRecord(out, KernelDef{.sid = nasty, .id = 1, .name = nasty, .demangled = nasty});
  formatRecord(out, ScopePath{nasty, 1, 0, nasty, 0});
  formatRecord(out, Note{nasty, 0, nasty, nasty, nasty});
  size_t start = 0;
  int lines = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1, ++lines) {
    keysOf(out.substr(start, nl + 1 - start));
  }
  EXPECT_EQ(lines, 3);
}

// Times at the ends of int64: the differences wrap (no signed overflow, which UBSan reports), and
// the wrapped value added back gives the original time.
TEST(NdjsonFormat, ExtremeTimesWrapInsteadOfOverflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  KernelDeltaEncoder delta;
  std::string out;
  formatKernelEvent(out, kernel(1, kMax, kMin), delta);
  formatKernelEvent(out, kernel(2, kMin, kMax), delta);
  EXPECT_NE(out.find("\"dur_ns\":1,"), std::string::npos) << out;   // kMin - kMax, wrapped
  EXPECT_NE(out.find("\"dur_ns\":-1,"), std::string::npos) << out;  // kMax - kMin, wrapped
  EXPECT_NE(out.find("\"dt_ns\":1}"), std::string::npos) << out;    // kMin - kMax, wrapped
  MemcpyEvent copy;
  copy.start_ns = kMin;
  copy.end_ns = kMax;
  SyncEvent sync;
  sync.start_ns = kMin;
  sync.end_ns = kMax;
  std::string lines[3];
  formatKernelEventAbsolute(lines[0], kernel(1, kMin, kMax));
  formatRecord(lines[1], copy);
  formatRecord(lines[2], sync);
  for (const std::string& line : lines) {
    EXPECT_TRUE(keySet(line).count("dur_ns")) << line;
    EXPECT_NE(line.find("\"dur_ns\":-1"), std::string::npos) << line;
  }
}

// The kernel_event fast path writes integers itself: the text must be std::to_chars' exactly, at
// every digit-count boundary and for values of every width.
TEST(NdjsonFormat, DecimalWriterMatchesToChars) {
  std::vector<uint64_t> values = {0, std::numeric_limits<uint64_t>::max()};
  uint64_t p = 1;
  for (int k = 0; k < 20; ++k, p *= 10) {
    for (uint64_t v : {p - 1, p, p + 1, p * 2 - 1}) values.push_back(v);
  }
  for (int b = 0; b < 64; ++b) {
    const uint64_t v = uint64_t{1} << b;
    for (uint64_t x : {v - 1, v, v + 1}) values.push_back(x);
  }
  uint64_t x = 0x9E3779B97F4A7C15ull;  // splitmix64: values of every bit width
  for (int i = 0; i < 100000; ++i) {
    x += 0x9E3779B97F4A7C15ull;
    uint64_t z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    values.push_back((z ^ (z >> 31)) >> (i % 64));
  }
  for (uint64_t v : values) {
    char want[24], got[24];
    const char* want_end = std::to_chars(want, want + sizeof want, v).ptr;
    const char* got_end = json::writeDecimal(got, v);
    ASSERT_EQ(std::string_view(got, size_t(got_end - got)),
              std::string_view(want, size_t(want_end - want)))
        << v;
  }
}

TEST(NdjsonFormat, NumberFieldsSignedAndBool) {
  std::string out = "{";
  json::NumberFields f;
  f.num<"a">(std::numeric_limits<int64_t>::min());
  f.num<"b">(int64_t{-1});
  f.num<"c">(std::numeric_limits<int64_t>::max());
  f.num<"d">(uint32_t{0});
  f.num<"e">(true);
  f.num<"f">(false);
  f.endLine(out);
  EXPECT_EQ(out,
            "{,\"a\":-9223372036854775808,\"b\":-1,\"c\":9223372036854775807,\"d\":0,\"e\":true,"
            "\"f\":false}\n");
}

}  // namespace
}  // namespace gpufl::log
