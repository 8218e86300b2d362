// One finished session as OTLP/HTTP protobuf requests (opentelemetry-proto, collector v1):
// - traces: every scope instance is a span, its parent the scope it was opened in on the same
// thread;
//   every kernel execution is a span whose parent is the instance of its scope path that was open
//   latest before the kernel started (none when launched outside scopes); launch shape, registers,
//   shared memory and occupancy are span attributes.
// - metrics: NVML and host samples as gauges, one data point per sample, the GPU index as
// attribute. Resource attributes: service.name (the app), host.name, process.pid, gpufl.session_id,
// gpufl.gpu.uuid. Trace and span ids are derived from the session id and record ids, so a session
// exported twice gives identical spans (a collector or backend can drop the repeats).
//
// The session is read with the log reader (two passes: scopes, then kernels and samples); requests
// are cut every `max_items` spans or data points, so memory grows with the number of scopes, not of
// kernels.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace gpufl::agent {

struct OtlpRequest {
  enum class Kind { Traces, Metrics } kind;
  std::string body;  // serialized ExportTraceServiceRequest / ExportMetricsServiceRequest
  uint64_t items = 0;
};

struct OtlpExportResult {
  bool ok = false;
  std::string error;
  uint64_t spans = 0, points = 0;
};

// `emit` returns false to abandon the export (e.g. the spool refused a request); so does `stop`
// (may be null) once set, within a few thousand records, so that a long session does not hold a
// SIGTERM. Either way the error is "export abandoned" and the session can be exported again.
OtlpExportResult exportSessionOtlp(const std::string& prefix, const std::string& sid,
                                   size_t max_items, const std::atomic<bool>* stop,
                                   const std::function<bool(OtlpRequest&&)>& emit);

}  // namespace gpufl::agent
