#include "core/event_visitor.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpufl {
namespace {

// Counts each handler by name; every EventVisitor handler is overridden here.
struct Counting : EventVisitor {
  std::map<std::string, int> seen;
  void onSessionStart(const SessionStart&) override { ++seen["session_start"]; }
  void onSessionEnd(const SessionEnd&) override { ++seen["session_end"]; }
  void onNote(const Note&) override { ++seen["note"]; }
  void onDevice(const DeviceEvent&) override { ++seen["device"]; }
  void onKernelDef(const KernelDef&) override { ++seen["kernel_def"]; }
  void onKernel(const KernelEvent&) override { ++seen["kernel"]; }
  void onMemcpy(const MemcpyEvent&) override { ++seen["memcpy"]; }
  void onSync(const SyncEvent&) override { ++seen["sync"]; }
  void onMemory(const MemoryEvent&) override { ++seen["memory"]; }
  void onStack(const StackDef&) override { ++seen["stack"]; }
  void onScopePath(const ScopePath&) override { ++seen["scope_path"]; }
  void onScopeBegin(const ScopeBegin&) override { ++seen["scope_begin"]; }
  void onScopeEnd(const ScopeEnd&) override { ++seen["scope_end"]; }
  void onGpuSample(const GpuSample&) override { ++seen["gpu_sample"]; }
  void onHostSample(const HostSample&) override { ++seen["host_sample"]; }
  void onSassMetric(const SassMetric&) override { ++seen["sass_metric"]; }
  void onPcSample(const PcSample&) override { ++seen["pc_sample"]; }
  void onRangeCounters(const RangeCounters&) override { ++seen["range_counters"]; }
  void onBenchmark(const BenchmarkResult&) override { ++seen["benchmark"]; }
};

TEST(ForwardingVisitor, ForwardsEveryEventType) {
  Counting sink;
  ForwardingVisitor forward(sink);
  EventVisitor& v = forward;
  v.onSessionStart({});
  v.onSessionEnd({});
  v.onNote({});
  v.onDevice({});
  v.onKernelDef({});
  v.onKernel({});
  v.onMemcpy({});
  v.onSync({});
  v.onMemory({});
  v.onStack({});
  v.onScopePath({});
  v.onScopeBegin({});
  v.onScopeEnd({});
  v.onGpuSample({});
  v.onHostSample({});
  v.onSassMetric({});
  v.onPcSample({});
  v.onRangeCounters({});
  v.onBenchmark({});
  EXPECT_EQ(sink.seen.size(), 19u);
  for (const auto& [name, count] : sink.seen) EXPECT_EQ(count, 1) << name;
}

}  // namespace
}  // namespace gpufl
