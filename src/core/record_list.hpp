// The record types of the log, listed once. Everything that must name every record type is
// generated from this list: the EventVisitor handlers and ForwardingVisitor (event_visitor.hpp),
// the field tables' Schema<T> (record_schema.hpp), the log writer's routing and the reader's
// dispatch by "type" (src/log), the session sink (src/runtime). Their fields are described in
// record_schema.hpp.
//
//   R(struct, "type", "channel", handler)
// - struct: the event type of events.hpp.
// - type: the record's "type" on the wire (docs/log-format.md).
// - channel: the file it is written to ("device", "scope", "system"; "all": every channel).
// - handler: its EventVisitor member function.
#pragma once

// clang-format off
#define GFL_RECORDS(R)                                                       \
  R(SessionStart, "session_start", "all", onSessionStart)                    \
  R(SessionEnd, "session_end", "all", onSessionEnd)                          \
  R(DeviceEvent, "device", "device", onDevice)                               \
  R(Note, "note", "device", onNote)                                          \
  R(KernelDef, "kernel_def", "device", onKernelDef)                          \
  R(KernelEvent, "kernel_event", "device", onKernel)                         \
  R(MemcpyEvent, "memcpy_event", "device", onMemcpy)                         \
  R(SyncEvent, "sync_event", "device", onSync)                               \
  R(MemoryEvent, "memory_event", "device", onMemory)                         \
  R(StackDef, "stack", "device", onStack)                                    \
  R(ScopePath, "scope_path", "scope", onScopePath)                           \
  R(ScopeBegin, "scope_begin", "scope", onScopeBegin)                        \
  R(ScopeEnd, "scope_end", "scope", onScopeEnd)                              \
  R(GpuSample, "system_sample", "system", onGpuSample)                       \
  R(HostSample, "host_sample", "system", onHostSample)                       \
  R(SassMetric, "sass_metric", "device", onSassMetric)                       \
  R(PcSample, "pc_sample", "device", onPcSample)                             \
  R(RangeCounters, "range_counters", "scope", onRangeCounters)               \
  R(BenchmarkResult, "benchmark", "device", onBenchmark)                     \
  R(Incident, "incident", "device", onIncident)                             \
  R(Health, "health", "device", onHealth)
// clang-format on
