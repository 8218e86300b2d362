// TimelineBuilder with hand-built events and a sink that records its calls: reordering within the
// window, overlap lanes, flows from the launching scope, clock offsets and pid collisions.
#include "export/timeline_builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace gpufl::exporter {
namespace {

struct Recorded {
  uint64_t track;
  int64_t begin, end;
  std::string name;
  uint64_t flow;
};

class RecordingSink : public TimelineSink {
 public:
  void process(uint64_t uuid, int64_t pid, std::string_view) override { pids[uuid] = pid; }
  void thread(uint64_t uuid, uint64_t, int64_t, int64_t, std::string_view name) override {
    names[uuid] = name;
  }
  void track(uint64_t uuid, uint64_t, std::string_view name) override { names[uuid] = name; }
  void counterTrack(uint64_t uuid, uint64_t, std::string_view name, std::string_view) override {
    names[uuid] = name;
  }
  void begin(uint64_t track, int64_t ts, std::string_view name, std::string_view,
             std::span<const SliceArg>, uint64_t flow) override {
    slices.push_back({track, ts, -1, std::string(name), flow});
  }
  void end(uint64_t, int64_t) override {}
  void complete(uint64_t track, int64_t b, int64_t e, std::string_view name, std::string_view,
                std::span<const SliceArg>, uint64_t flow) override {
    slices.push_back({track, b, e, std::string(name), flow});
  }
  void counter(uint64_t, int64_t, double) override {}
  void instant(uint64_t track, int64_t ts, std::string_view name, std::string_view,
               std::span<const SliceArg> args) override {
    instants.push_back({track, ts, ts, std::string(name), 0});
    instant_args.push_back(args.size());
  }
  bool finish(std::string*) override { return true; }

  std::map<uint64_t, int64_t> pids;
  std::map<uint64_t, std::string> names;
  std::vector<Recorded> slices;
  std::vector<Recorded> instants;
  std::vector<size_t> instant_args;
};

KernelDef def(uint32_t id, const char* name) {
  KernelDef d;
  d.id = id;
  d.name = d.demangled = name;
  return d;
}

KernelEvent kernel(uint32_t def_id, int64_t start, int64_t end, uint32_t scope = 0) {
  KernelEvent k;
  k.def_id = def_id;
  k.stream = 7;
  k.start_ns = start;
  k.end_ns = end;
  k.scope_path = scope;
  return k;
}

TEST(TimelineBuilder, PutsLateKernelsInStartOrderWithinTheWindow) {
  RecordingSink sink;
  TimelineBuilder b(sink, {}, nullptr, nullptr);
  b.onKernelDef(def(1, "k"));
  b.onKernel(kernel(1, 300, 400));
  b.onKernel(kernel(1, 100, 200));  // delivered after its successor, as CUPTI does
  b.finish();
  ASSERT_EQ(sink.slices.size(), 2u);
  EXPECT_EQ(sink.slices[0].begin, 100);
  EXPECT_EQ(sink.slices[1].begin, 300);
  EXPECT_EQ(sink.slices[0].track, sink.slices[1].track);
  EXPECT_EQ(b.outOfOrderSlices(), 0u);
}

TEST(TimelineBuilder, SliceLaterThanTheWindowGoesToAnOverlapLaneAndIsCounted) {
  RecordingSink sink;
  TimelineBuilder b(sink, {}, nullptr, nullptr);
  b.onKernelDef(def(1, "k"));
  b.onKernel(kernel(1, 1'000'000, 1'000'010));
  for (size_t i = 0; i <= TimelineBuilder::kReorderWindow; ++i)
    b.onKernel(kernel(1, 2'000'000 + int64_t(i) * 100, 2'000'000 + int64_t(i) * 100 + 50));
  b.onKernel(kernel(1, 1'000'005, 1'000'008));  // too late: its neighbours are already written
  b.finish();
  EXPECT_EQ(b.outOfOrderSlices(), 1u);
  auto it = std::find_if(sink.slices.begin(), sink.slices.end(),
                         [](const Recorded& r) { return r.begin == 1'000'005; });
  ASSERT_NE(it, sink.slices.end());
  const Recorded& late = *it;
  EXPECT_NE(late.track, sink.slices.front().track);
  EXPECT_NE(sink.names[late.track].find("(overlap 1)"), std::string::npos);
}

TEST(TimelineBuilder, FlowLinksAKernelToTheLatestScopeOfItsPathThatBeganBeforeIt) {
  ScopeIndex scopes;
  ScopeBegin s1{.sid = "", .id = 11, .path = 3, .tid = 5, .ts_ns = 100, .name = {}, .tag = {}};
  ScopeBegin s2{.sid = "", .id = 12, .path = 3, .tid = 5, .ts_ns = 500, .name = {}, .tag = {}};
  scopes.onScopeBegin(s2);  // index order does not matter
  scopes.onScopeBegin(s1);
  scopes.seal();
  RecordingSink sink;
  SessionPlacement placement;
  placement.rank = 2;
  TimelineBuilder b(sink, placement, &scopes, nullptr);
  b.onKernelDef(def(1, "k"));
  b.onKernel(kernel(1, 50, 60, 3));    // before any instance: no flow
  b.onKernel(kernel(1, 200, 300, 3));  // inside the first
  b.onKernel(kernel(1, 600, 700, 3));  // after the second began
  b.onKernel(kernel(1, 800, 900, 0));  // outside scopes
  b.finish();
  ASSERT_EQ(sink.slices.size(), 4u);
  EXPECT_EQ(sink.slices[0].flow, 0u);
  EXPECT_EQ(sink.slices[1].flow, flowIdOfScope(2, 11));
  EXPECT_EQ(sink.slices[2].flow, flowIdOfScope(2, 12));
  EXPECT_EQ(sink.slices[3].flow, 0u);
  EXPECT_NE(flowIdOfScope(1, 11), flowIdOfScope(2, 11));
}

TEST(TimelineBuilder, OffsetMovesEveryTimestampAndTakenPidsAreShifted) {
  std::set<int64_t> used{42};
  RecordingSink sink;
  SessionPlacement placement;
  placement.offset_ns = 1000;
  placement.used_pids = &used;
  TimelineBuilder b(sink, placement, nullptr, nullptr);
  SessionStart start;
  start.pid = 42;
  b.onSessionStart(start);
  b.onKernelDef(def(1, "k"));
  b.onKernel(kernel(1, 10, 20));
  b.finish();
  EXPECT_EQ(b.shownPid(), 1'000'042);
  ASSERT_EQ(sink.slices.size(), 1u);
  EXPECT_EQ(sink.slices[0].begin, 1010);
  EXPECT_EQ(sink.slices[0].end, 1020);
}

TEST(TimelineBuilder, KernelWithoutDefinitionIsKeptAndCounted) {
  RecordingSink sink;
  TimelineBuilder b(sink, {}, nullptr, nullptr);
  b.onKernel(kernel(9, 10, 20));
  b.finish();
  ASSERT_EQ(sink.slices.size(), 1u);
  EXPECT_EQ(b.kernelsWithoutDefinition(), 1u);
}

TEST(TimelineBuilder, IncidentsAreInstantsOnTheirOwnTrack) {
  RecordingSink sink;
  SessionPlacement placement;
  placement.offset_ns = 1000;
  TimelineBuilder b(sink, placement, nullptr, nullptr);
  Incident i;
  i.ts_ns = 500;
  i.kind = "cuda_error";
  i.reason = "cudaDeviceSynchronize returned cudaErrorIllegalAddress";
  i.api = "cudaDeviceSynchronize";
  i.error_code = 700;
  InFlightLaunch l;
  l.name = "_Z5scalePf";
  l.suspect = true;
  i.in_flight = {l};
  i.in_flight_count = 1;
  b.onIncident(i);
  Incident dump;
  dump.ts_ns = 900;
  dump.kind = "dump";
  dump.reason = "asked";
  b.onIncident(dump);
  b.finish();
  ASSERT_EQ(sink.instants.size(), 2u);
  EXPECT_EQ(sink.instants[0].name,
            "cuda_error: cudaDeviceSynchronize returned cudaErrorIllegalAddress");
  EXPECT_EQ(sink.instants[0].begin, 1500);
  EXPECT_EQ(sink.instants[0].track, sink.instants[1].track);
  EXPECT_EQ(sink.names[sink.instants[0].track], "incidents");
  EXPECT_EQ(sink.instant_args[0], 4u);  // api, error_code, suspects, in_flight
  EXPECT_EQ(sink.instant_args[1], 1u);  // in_flight
}

}  // namespace
}  // namespace gpufl::exporter
