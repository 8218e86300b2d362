// Receives events one at a time: the reader calls it while streaming a log, the report aggregates through it,
// tests drive it with hand-built events. Every handler defaults to ignoring the event.
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

}  // namespace gpufl
