// Exports the sessions of one or more log prefixes into a TimelineSink, one process per session.
//
// Each prefix is read in up to three streaming passes, none of which keeps events: the scope
// channel (scope slices, and the ScopeIndex that links kernels to the scope that launched them),
// the device channel's deep records when the session ran a deep engine (DeepSummary), then the
// device and system channels (kernels, copies, counters). With several prefixes, each session's
// timestamps are moved onto the first session's monotonic clock through the wall clock read at each
// start (see alignClocks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/timeline_sink.hpp"

namespace gpufl::exporter {

struct ExportedSession {
  std::string prefix, sid, app, host;
  int64_t pid = 0;        // as logged
  int64_t shown_pid = 0;  // as written (made unique when two sessions share a pid)
  int64_t offset_ns = 0;  // added to its timestamps
  uint64_t kernels = 0, copies = 0, scopes = 0, samples = 0;
  uint64_t out_of_order = 0;  // GPU slices later than the reorder window allowed
};

struct TimelineExportResult {
  bool ok = false;
  std::string error;  // why nothing (or not everything) was written
  std::vector<std::string>
      warnings;  // "file:line: message" from the reader, and the exporter's own
  std::vector<ExportedSession> sessions;
};

struct TimelineExportOptions {
  std::string
      session;  // a session id or a prefix of one, for every prefix (empty: the latest of each)
  bool compact_kernel_args = false;  // see SessionPlacement
};

TimelineExportResult exportTimeline(const std::vector<std::string>& prefixes,
                                    const TimelineExportOptions& options, TimelineSink& sink);

}  // namespace gpufl::exporter
