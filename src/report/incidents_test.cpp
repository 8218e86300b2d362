// The Incidents section's computations: suspects and their launch sites, names of the last
// kernels, the device memory live at an incident whatever the log order, what to try, and the
// notes that replace the "buffers were full" explanation after a fatal CUDA error.
#include "report/aggregate/incidents.hpp"

#include <gtest/gtest.h>

#include "report/aggregate/report_builder.hpp"
#include "report/report.hpp"
#include "report/sections/incidents.hpp"

namespace gpufl::report {
namespace {

constexpr int64_t kStart = 1'000'000'000;
constexpr int64_t kMs = 1'000'000;

void start(ReportBuilder& b) {
  SessionStart s;
  s.sid = "aaaaaaaa";
  s.app = "test";
  s.pid = 4242;
  s.start_ns = kStart;
  b.onSessionStart(s);
}

void end(ReportBuilder& b, uint64_t untimed = 0) {
  SessionEnd e;
  e.end_ns = kStart + 10'000 * kMs;
  if (untimed > 0) e.dropped["untimed_kernels"] = untimed;
  e.dropped["activity"] = 0;
  b.onSessionEnd(e);
}

void define(ReportBuilder& b, uint32_t id, const std::string& mangled,
            const std::string& demangled) {
  KernelDef d;
  d.id = id;
  d.name = mangled;
  d.demangled = demangled;
  b.onKernelDef(d);
}

void scope(ReportBuilder& b, uint32_t id, uint32_t parent, const std::string& name) {
  ScopePath p;
  p.id = id;
  p.parent = parent;
  p.name = name;
  b.onScopePath(p);
}

InFlightLaunch launch(uint64_t corr, const std::string& name, uint32_t stream, bool suspect,
                      uint32_t scope_path = 0, int64_t launch_ns = 0) {
  InFlightLaunch l;
  l.correlation_id = corr;
  l.kind = "kernel";
  l.name = name;
  l.stream = stream;
  l.context = 0x100;
  l.tid = 77;
  l.scope_path = scope_path;
  l.launch_ns = launch_ns;
  l.suspect = suspect;
  return l;
}

Incident incident(const std::string& kind, int64_t ts_ns) {
  Incident i;
  i.sid = "aaaaaaaa";
  i.kind = kind;
  i.ts_ns = ts_ns;
  i.reason = kind + " happened";
  return i;
}

MemoryEvent memory(int64_t ts, uint64_t address, uint64_t bytes, bool is_free, uint32_t scope_path,
                   const std::string& kind = "device") {
  MemoryEvent m;
  m.ts_ns = ts;
  m.address = address;
  m.bytes = bytes;
  m.is_free = is_free;
  m.scope_path = scope_path;
  m.memory_kind = kind;
  return m;
}

const IncidentView& only(const Report& r) {
  EXPECT_EQ(r.incidents.incidents.size(), 1u);
  return r.incidents.incidents.front();
}

TEST(Incidents, SuspectsAreShownWithTheirLaunchSite) {
  ReportBuilder b;
  start(b);
  scope(b, 1, 0, "train");
  scope(b, 2, 1, "step");
  StackDef stack;
  stack.id = 9;
  stack.frames = {"scale(float*) at main.cu:42", "main at main.cu:80"};
  b.onStack(stack);
  Incident i = incident("cuda_error", kStart + 2'500 * kMs);
  i.api = "cudaDeviceSynchronize";
  i.error_code = 700;
  i.error_name = "cudaErrorIllegalAddress";
  i.tid = 77;
  i.scope_path = 2;
  i.attribution = "exact: the only launch on this context not proven finished";
  i.in_flight_count = 3;
  i.in_flight = {launch(10, "_Z5scalePfi", 7, true, 2, kStart + 2'490 * kMs),
                 launch(11, "_Z4fillPf", 7, false), launch(12, "_Z4fillPf", 8, false)};
  i.in_flight[0].stack_id = 9;
  b.onIncident(i);
  end(b, 3);
  const Report r = b.build();
  const IncidentView& v = only(r);
  EXPECT_EQ(v.at_ns, 2'500 * kMs);
  ASSERT_EQ(v.launches.size(), 3u);
  EXPECT_TRUE(v.launches[0].suspect);
  EXPECT_EQ(v.launches[0].name, "scale");  // the readable short name
  EXPECT_EQ(v.launches[0].age_ns, 10 * kMs);
  ASSERT_EQ(v.launches[0].stack.size(), 2u);
  EXPECT_EQ(r.incidents.untimed_kernels, 3u);

  const std::string text = renderText(r, {});
  // First in the report, before the session summary.
  EXPECT_LT(text.find("Incident"), text.find("Session Summary"));
  EXPECT_NE(text.find("#1 cuda_error at 2.500 s"), std::string::npos) << text;
  EXPECT_NE(text.find("Suspect:              scale (kernel, corr 10)"), std::string::npos) << text;
  EXPECT_NE(text.find("on stream 7 by thread 77, launched 10.00 ms before\n"
                      "                        in scope train/step\n"
                      "                        at scale(float*) at main.cu:42\n"
                      "                           main at main.cu:80\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Also In Flight:       2 launches: fill (stream 7); fill (stream 8)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("compute-sanitizer"), std::string::npos);
  EXPECT_NE(text.find("scope train/step"), std::string::npos);
  // The session ended: no line about a missing session_end.
  EXPECT_EQ(text.find("without a session_end"), std::string::npos);
  for (size_t pos = 0, next; pos < text.size(); pos = next + 1) {
    next = text.find('\n', pos);
    const std::string line = text.substr(pos, next - pos);
    if (line.find("cuda_error") != std::string::npos || line.find("Suspect") != std::string::npos) {
      EXPECT_LE(line.size(), 80u) << line;
    }
  }

  const std::string json = renderJson(r, {});
  EXPECT_LT(json.find("\"incidents\""), json.find("\"session\"")) << json;
  EXPECT_NE(json.find("\"scope_name\": \"train/step\""), std::string::npos);
  EXPECT_NE(json.find("\"suspect\": true"), std::string::npos);
}

TEST(Incidents, AfterAFatalErrorMissingKernelsAreBlamedOnTheFaultNotOnBuffers) {
  ReportBuilder b;
  start(b);
  Incident i = incident("cuda_error", kStart + kMs);
  i.error_name = "cudaErrorIllegalAddress";
  b.onIncident(i);
  end(b, 76);
  const Report r = b.build();
  const std::string text = renderText(r, {});
  EXPECT_NE(text.find("No kernels recorded."), std::string::npos);
  EXPECT_NE(text.find("The context faulted at 0.001 s (cudaErrorIllegalAddress): 76 kernels"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("buffers were full"), std::string::npos) << text;
  bool hint = false;
  for (const Hint& h : r.hints) hint |= h.kind == "context_faulted";
  EXPECT_TRUE(hint);
}

TEST(Incidents, IncidentsLeftOutAreSaidInTheSectionNotBlamedOnBuffers) {
  ReportBuilder b;
  start(b);
  b.onIncident(incident("out_of_memory", kStart + kMs));
  SessionEnd e;
  e.end_ns = kStart + 10 * kMs;
  e.dropped["incidents"] = 4;  // out of memory again within 10 s: repeats
  b.onSessionEnd(e);
  const Report r = b.build();
  for (const Hint& h : r.hints) EXPECT_NE(h.kind, "dropped") << h.text;
  EXPECT_NE(renderText(r, {}).find("4 more were not recorded: repeats"), std::string::npos);
  EXPECT_NE(renderJson(r, {}).find("\"incidents_not_recorded\": 4"), std::string::npos);
}

TEST(Incidents, UntimedKernelsWithoutAFaultAreNotBlamedOnBuffersEither) {
  ReportBuilder b;
  start(b);
  end(b, 3);
  const Report r = b.build();
  bool untimed = false, dropped = false;
  for (const Hint& h : r.hints) {
    untimed |= h.kind == "untimed_kernels";
    dropped |= h.kind == "dropped";
  }
  EXPECT_TRUE(untimed);
  EXPECT_FALSE(dropped);
}

TEST(Incidents, LastKernelsAreNamedByTheirDefinition) {
  ReportBuilder b;
  start(b);
  define(b, 5, "_Z6reducePf", "reduce(float*)");
  KernelEvent k;  // a last kernel finished with times: its group is in the model
  k.def_id = 5;
  k.start_ns = kStart + 8'000 * kMs;
  k.end_ns = kStart + 9'000 * kMs;
  b.onKernel(k);
  Incident i = incident("hang", kStart + 70'000 * kMs);
  i.last_kernels = {{7, 5, 99, kStart + 9'000 * kMs}, {8, 6, 100, kStart + 9'500 * kMs}};
  b.onIncident(i);
  const Report r = std::move(b).build();
  const IncidentView& v = only(r);
  ASSERT_EQ(v.last_kernels.size(), 2u);
  EXPECT_EQ(v.last_kernels[0].name, "reduce");
  EXPECT_EQ(v.last_kernels[0].before_ns, 61'000 * kMs);
  EXPECT_EQ(v.last_kernels[1].name, "kernel_def #6");  // no such definition in the log
  const std::string text = renderText(r, {});
  EXPECT_NE(text.find("The program ended without a session_end: it crashed or was killed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 incident recorded"), std::string::npos) << text;
  EXPECT_LT(text.find("without a session_end"), text.find("Incidents\n"));
}

// Memory events before the incident count, those after it do not, whichever side of the incident
// the log placed them.
TEST(Incidents, LiveMemoryAtTheIncidentComesFromTheEventsBeforeIt) {
  const int64_t t = kStart + 100 * kMs;
  for (bool incident_first : {false, true}) {
    ReportBuilder b;
    start(b);
    scope(b, 1, 0, "model");
    scope(b, 2, 0, "batch");
    Incident i = incident("out_of_memory", t);
    i.requested_bytes = 4 << 20;
    i.free_bytes = 1 << 20;
    i.total_bytes = 80 << 20;
    if (incident_first) b.onIncident(i);
    b.onMemory(memory(t - 50, 0x1000, 10 << 20, false, 1));
    b.onMemory(memory(t - 40, 0x2000, 20 << 20, false, 1));
    b.onMemory(memory(t - 30, 0x3000, 5 << 20, false, 2));
    b.onMemory(memory(t - 20, 0x3000, 5 << 20, true, 2));  // released before: not held
    b.onMemory(memory(t - 10, 0x4000, 2 << 20, false, 2));
    b.onMemory(memory(t - 5, 0x5000, 1 << 20, false, 0, "pinned"));  // host memory
    b.onMemory(memory(t + 10, 0x1000, 10 << 20, true, 1));           // released after: still held
    b.onMemory(memory(t + 20, 0x6000, 30 << 20, false, 2));          // allocated after: not held
    if (!incident_first) b.onIncident(i);
    const Report r = b.build();
    const IncidentMemory& m = only(r).memory;
    SCOPED_TRACE(incident_first ? "incident first" : "incident last");
    EXPECT_TRUE(m.from_events);
    EXPECT_FALSE(m.approximate);
    EXPECT_EQ(m.live_allocs, 3u);
    EXPECT_EQ(m.live_bytes, uint64_t{32} << 20);
    ASSERT_EQ(m.holders.size(), 2u);
    EXPECT_EQ(m.holders[0].scope_path, 1u);
    EXPECT_EQ(m.holders[0].bytes, uint64_t{30} << 20);
    EXPECT_EQ(m.holders[0].allocs, 2u);
    EXPECT_EQ(m.holders[0].largest, uint64_t{20} << 20);
    EXPECT_EQ(m.holders[1].bytes, uint64_t{2} << 20);
    const std::string text = renderText(r, {});
    EXPECT_NE(text.find("Requested:            4.0 MB, with 1.0 MB free of 80.0 MB"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("32.0 MB in 3 allocations"), std::string::npos) << text;
    EXPECT_NE(text.find("Scope model held the most: 30.0 MB in 2 allocations"), std::string::npos)
        << text;
    EXPECT_NE(text.find("expandable_segments"), std::string::npos);
    EXPECT_NE(text.find("XLA_PYTHON_CLIENT_PREALLOCATE"), std::string::npos);
  }
}

TEST(Incidents, MemoryPastTheLookBackIsMarkedApproximate) {
  ReportBuilder b;
  start(b);
  const int64_t t = kStart + kMs;
  b.onMemory(memory(t - 1, 0x10, 100, false, 0));
  for (size_t k = 0; k <= IncidentCollector::kLookBack; ++k)
    b.onMemory(memory(t + 1 + static_cast<int64_t>(k), 0x1000 + k, 1, false, 0));
  b.onIncident(incident("dump", t));
  const Report r = b.build();  // kept: `only` returns a reference into it
  const IncidentMemory& m = only(r).memory;
  EXPECT_TRUE(m.approximate);
  // The kept events are undone; the one forgotten stays counted.
  EXPECT_EQ(m.live_allocs, 2u);
}

TEST(Incidents, WithoutMemoryEventsTheNvmlFigureIsShown) {
  ReportBuilder b;
  start(b);
  Incident i = incident("dump", kStart + kMs);
  i.gpu_mem_used_bytes = uint64_t{70} << 30;
  i.gpu_mem_total_bytes = uint64_t{80} << 30;
  i.gpu_util = 97;
  i.gpu_temp_c = 66;
  i.gpu_clk_sm = 1980;
  i.gpu_power_mw = 312'500;
  i.gpu_sample_age_ns = 120 * kMs;
  b.onIncident(i);
  end(b);
  const std::string text = renderText(b.build(), {});
  EXPECT_NE(text.find("GPU Memory:           70.0 GB used of 80.0 GB (NVML)"), std::string::npos)
      << text;
  EXPECT_NE(
      text.find("GPU:                  util 97%, 66 C, SM 1980 MHz, 312.5 W (sample 120.00 ms"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("Informational"), std::string::npos);
}

TEST(Incidents, AHangPointsAtTheStuckKernelAndWhereItSpins) {
  ReportBuilder b;
  start(b);
  define(b, 1, "_Z4spinPVi", "spin(int volatile*)");
  const std::vector<std::pair<std::string, uint64_t>> stalls = {
      {"branch_resolving", 60}, {"wait", 30}, {"barrier", 10}};
  for (const auto& [stall, count] : stalls) {
    PcSample s;
    s.func = "_Z4spinPVi";
    s.pc = 0x40;
    s.stall = stall;
    s.count = count;
    s.source = "spin.cu:12";
    b.onPcSample(s);
  }
  Incident i = incident("hang", kStart + 65'000 * kMs);
  i.api = "cudaStreamSynchronize";
  i.in_flight = {launch(3, "_Z4spinPVi", 13, true, 0, kStart + 2'000 * kMs),
                 launch(4, "_Z4fillPf", 13, false)};
  i.in_flight_count = 2;
  i.blocked = {{77, "cudaStreamSynchronize", kStart + 3'000 * kMs, 0xabc, 0}};
  b.onIncident(i);
  end(b);
  const Report r = b.build();
  const std::vector<std::string> advice = incidentAdvice(only(r), r);
  ASSERT_GE(advice.size(), 3u);
  EXPECT_NE(advice[0].find("Stream 13 is stuck in spin, launched 63.00 s before"),
            std::string::npos)
      << advice[0];
  EXPECT_NE(advice[1].find("spin.cu:12"), std::string::npos) << advice[1];
  EXPECT_NE(advice[1].find("(60.0%)"), std::string::npos) << advice[1];
  EXPECT_NE(advice[2].find("py-spy dump --pid 4242"), std::string::npos) << advice[2];
  const std::string text = renderText(r, {});
  EXPECT_NE(text.find("Waiting Threads:      77 in cudaStreamSynchronize for 62.00 s"),
            std::string::npos)
      << text;
}

TEST(Incidents, AHangWithoutSamplesSuggestsPcSampling) {
  ReportBuilder b;
  start(b);
  Incident i = incident("hang", kStart + 65'000 * kMs);
  i.in_flight = {launch(3, "_Z4spinPVi", 13, true)};
  b.onIncident(i);
  const Report r = b.build();
  bool suggested = false;
  for (const std::string& a : incidentAdvice(only(r), r))
    suggested |= a.find("--engine PcSampling") != std::string::npos;
  EXPECT_TRUE(suggested);
}

TEST(Incidents, NoIncidentsNoSection) {
  ReportBuilder b;
  start(b);
  end(b);
  const Report r = b.build();
  EXPECT_TRUE(r.incidents.incidents.empty());
  const std::string text = renderText(r, {});
  EXPECT_EQ(text.find("Incident"), std::string::npos);
  EXPECT_NE(renderJson(r, {}).find("\"incidents\": []"), std::string::npos);
}

}  // namespace
}  // namespace gpufl::report
