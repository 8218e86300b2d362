// Receives events one at a time: the reader calls it while streaming a log, the report aggregates
// through it, tests drive it with hand-built events. Every handler defaults to ignoring the event.
#pragma once

#include "core/events.hpp"

namespace gpufl {

// Which file of a prefix a record belongs to.
enum class Channel { Device, Scope, System };
const char* channelName(Channel c);

class EventVisitor {
 public:
  virtual ~EventVisitor() = default;
  virtual void onSessionStart(const SessionStart&) {}
  virtual void onSessionEnd(const SessionEnd&) {}
  virtual void onNote(const Note&) {}
  virtual void onDevice(const DeviceEvent&) {}
  virtual void onKernelDef(const KernelDef&) {}
  virtual void onKernel(const KernelEvent&) {}
  virtual void onMemcpy(const MemcpyEvent&) {}
  virtual void onSync(const SyncEvent&) {}
  virtual void onMemory(const MemoryEvent&) {}
  virtual void onStack(const StackDef&) {}
  virtual void onScopePath(const ScopePath&) {}
  virtual void onScopeBegin(const ScopeBegin&) {}
  virtual void onScopeEnd(const ScopeEnd&) {}
  virtual void onGpuSample(const GpuSample&) {}
  virtual void onHostSample(const HostSample&) {}
  virtual void onSassMetric(const SassMetric&) {}
  virtual void onPcSample(const PcSample&) {}
  virtual void onRangeCounters(const RangeCounters&) {}
  virtual void onBenchmark(const BenchmarkResult&) {}
};

// Passes every event on to `next`. Wrappers (the session's sink, filters) derive from it and
// override only what they change, so an event type added to EventVisitor later is forwarded by
// them, not silently dropped. A new handler above must be added here too (event_visitor_test checks
// every one arrives).
class ForwardingVisitor : public EventVisitor {
 public:
  explicit ForwardingVisitor(EventVisitor& next) : next_(next) {}
  void onSessionStart(const SessionStart& e) override { next_.onSessionStart(e); }
  void onSessionEnd(const SessionEnd& e) override { next_.onSessionEnd(e); }
  void onNote(const Note& e) override { next_.onNote(e); }
  void onDevice(const DeviceEvent& e) override { next_.onDevice(e); }
  void onKernelDef(const KernelDef& e) override { next_.onKernelDef(e); }
  void onKernel(const KernelEvent& e) override { next_.onKernel(e); }
  void onMemcpy(const MemcpyEvent& e) override { next_.onMemcpy(e); }
  void onSync(const SyncEvent& e) override { next_.onSync(e); }
  void onMemory(const MemoryEvent& e) override { next_.onMemory(e); }
  void onStack(const StackDef& e) override { next_.onStack(e); }
  void onScopePath(const ScopePath& e) override { next_.onScopePath(e); }
  void onScopeBegin(const ScopeBegin& e) override { next_.onScopeBegin(e); }
  void onScopeEnd(const ScopeEnd& e) override { next_.onScopeEnd(e); }
  void onGpuSample(const GpuSample& e) override { next_.onGpuSample(e); }
  void onHostSample(const HostSample& e) override { next_.onHostSample(e); }
  void onSassMetric(const SassMetric& e) override { next_.onSassMetric(e); }
  void onPcSample(const PcSample& e) override { next_.onPcSample(e); }
  void onRangeCounters(const RangeCounters& e) override { next_.onRangeCounters(e); }
  void onBenchmark(const BenchmarkResult& e) override { next_.onBenchmark(e); }

 protected:
  EventVisitor& next_;
};

}  // namespace gpufl
