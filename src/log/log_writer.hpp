// Writes events as NDJSON into the three channel files of a prefix, with size-based rotation; closed segments
// are compressed with zstd on a background thread, never on the caller's thread.
// A LogWriter is used from one thread at a time (the session's writer thread); it is itself an EventVisitor, so
// a reader can be piped into it (`gpufl cat`, synthetic sessions, round-trip tests).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "core/event_visitor.hpp"

namespace gpufl::log {

struct LogWriterOptions {
  std::string prefix;                    // "./run" -> run.device.log, run.scope.log, run.system.log
  uint64_t rotate_bytes = 64ull << 20;   // per channel; 0 = never rotate
  int zstd_level = 3;
  bool compress_rotated = true;
};

struct LogWriterStats {
  uint64_t records = 0;
  uint64_t bytes_written = 0;   // uncompressed bytes handed to the files
  uint64_t segments_rotated = 0;
  // I/O failures (disk full, file removed, ...) never stop the program: lines are dropped and counted here.
  uint64_t write_errors = 0;    // failed open/write/rename calls
  uint64_t bytes_dropped = 0;   // formatted bytes that never reached a file
  uint64_t segments_compressed = 0;
  uint64_t compress_errors = 0; // a segment that failed to compress stays as plain .log
  std::string last_error;       // the latest failure, naming the path and the system's reason
};

class LogWriter : public EventVisitor {
 public:
  // Opens (appending to) the channel files; nullptr and *error set when a file cannot be opened.
  static std::unique_ptr<LogWriter> open(const LogWriterOptions& options, std::string* error);
  // A writer to a stream (stdout for `gpufl cat`): every channel goes to the same stream, no rotation;
  // with `only`, just that channel's records (session start and end belong to every channel).
  static std::unique_ptr<LogWriter> toStream(std::FILE* stream,
                                             std::optional<Channel> only = std::nullopt);
  ~LogWriter() override;

  // Pushes buffered lines to the OS. Called periodically by the session and at shutdown.
  virtual void flush() = 0;
  // Flushes, closes the files and waits for pending compressions. Idempotent.
  virtual void close() = 0;
  virtual LogWriterStats stats() const = 0;
};

}  // namespace gpufl::log
