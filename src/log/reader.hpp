// Streaming reader of a GPU Flight log prefix: all segments of all channels, plain or zstd, one
// session. Memory does not grow with the log: lines are parsed one at a time and handed to an
// EventVisitor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"

namespace gpufl::log {

struct ReadWarning {
  std::string file;
  uint64_t line = 0;    // 1-based; 0 when the warning is about the whole file
  std::string message;  // names the field when a field is at fault
};

struct SessionListing {
  std::string sid;
  std::string session_id;
  std::string app;
  int64_t start_ns = 0;
  int64_t start_unix_ns = 0;
};

struct ReadOptions {
  std::string session;  // empty: the latest session; else a session id or a prefix of one (sid)
  size_t max_warnings = 100;  // warnings kept in ReadResult (all are counted)
  size_t max_line_bytes = size_t{16}
                          << 20;  // longer lines are skipped with a warning; bounds memory
};

// Records of the kinds session_end counts: kernel events, copies (memcpy and memset), scopes
// (scope_begin).
struct RecordCounts {
  uint64_t kernels = 0, memcpys = 0, scopes = 0;
  bool operator==(const RecordCounts&) const = default;
};

// Numbered segments first..last of a channel that are absent although later ones exist.
struct MissingSegments {
  std::string channel;
  uint64_t first = 0, last = 0;
};

struct ReadResult {
  bool found_files = false;   // at least one file of the prefix exists
  bool any_readable = false;  // at least one record of the chosen session was delivered
  std::string chosen_sid;
  std::string chosen_session_id;         // empty when no session_start of it was found
  std::vector<SessionListing> sessions;  // every session seen under the prefix, oldest first
  std::vector<ReadWarning> warnings;     // the first max_warnings
  uint64_t warning_count = 0;
  uint64_t records = 0;            // records delivered
  std::vector<std::string> files;  // files read, in order
  // Lost data of the chosen session (every problem is also a warning):
  std::vector<MissingSegments>
      missing_segments;        // holes in a channel's numbering inside the session
  bool have_written = false;   // a session_end was read
  RecordCounts written;        // what session_end says was written (the largest of its copies)
  RecordCounts read;           // what was delivered
  uint64_t damaged_lines = 0;  // lines that could not be used (RecordDecoder::damagedLines)
  uint64_t lost_kernels = 0;   // kernel events lost beyond those lines (RecordDecoder::lostKernels)
  uint64_t unreadable_files = 0;  // files that could not be opened or read to their end
};

// "file:line: message"; the line is left out when 0 and the file when empty.
std::string formatWarning(const ReadWarning& warning);

// Channel files of `prefix` in read order: numbered segments ascending, then the active file.
std::vector<std::string> channelFiles(const std::string& prefix, Channel channel);

// Lists the sessions under a prefix without delivering events.
std::vector<SessionListing> listSessions(const std::string& prefix);

// Reads the chosen session: channels device, scope, system, in that order; within a channel, file
// order.
ReadResult readPrefix(const std::string& prefix, const ReadOptions& options, EventVisitor& visitor);

}  // namespace gpufl::log
