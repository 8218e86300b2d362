// Writes events as NDJSON into the three channel files of a prefix, with size-based rotation;
// closed segments are compressed with zstd on a background thread, never on the caller's thread.
// Segments that an earlier writer on the prefix left plain (killed, or shut down before compressing
// them) are compressed by the next one opened there. A LogWriter is used from one thread at a time
// (the session's writer thread); it is itself an EventVisitor, so a reader can be piped into it
// (`gpufl cat`, synthetic sessions, round-trip tests).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "core/event_visitor.hpp"

namespace gpufl::log {

struct LogWriterOptions {
  std::string prefix;                   // "./run" -> run.device.log, run.scope.log, run.system.log
  uint64_t rotate_bytes = 64ull << 20;  // per channel; 0 = never rotate
  int zstd_level = 3;
  bool compress_rotated =
      true;  // also: compress plain segments left under the prefix by earlier writers
  // Kernel events as kernel_block lines (kernel_block.hpp: about half the compressed bytes) instead
  // of one kernel_event line each. Blocks go out when full, at flush(), before a session_end and
  // at close(); a stream writer (`gpufl cat`) always writes lines.
  bool kernel_blocks = false;
  // close() waits at most this long for compressions; segments not done by then stay plain.
  std::chrono::milliseconds close_wait{1000};
  // Every record into this channel's file, the only one created (`gpufl monitor`: its samples
  // and notes in PREFIX.system.log); session_start (with the devices) and session_end once.
  std::optional<Channel> one_file;
};

struct LogWriterStats {
  uint64_t records = 0;
  uint64_t bytes_written = 0;  // uncompressed bytes handed to the files
  uint64_t segments_rotated = 0;
  // I/O failures (disk full, file removed, ...) never stop the program: lines are dropped and
  // counted here.
  uint64_t write_errors = 0;  // failed open/write/rename calls
  uint64_t records_dropped =
      0;  // records that did not reach a file whole (session_end's dropped.write)
  uint64_t bytes_dropped = 0;  // formatted bytes that never reached a file
  uint64_t segments_compressed = 0;
  uint64_t compress_errors = 0;  // a segment that failed to compress stays as plain .log
  uint64_t segments_left_plain =
      0;  // compressions abandoned at close (close_wait); the next writer does them
  std::string last_error;  // the latest failure, naming the path and the system's reason
};

class LogWriter : public EventVisitor {
 public:
  // Opens (appending to) the channel files; nullptr and *error set when a file cannot be opened or
  // the prefix names a directory ("logs/": see checkPrefix in segment_file.hpp).
  static std::unique_ptr<LogWriter> open(const LogWriterOptions& options, std::string* error);
  // A writer to a stream (stdout for `gpufl cat`): every channel goes to the same stream, no
  // rotation; with `only`, just that channel's records (session start and end belong to every
  // channel).
  static std::unique_ptr<LogWriter> toStream(std::FILE* stream,
                                             std::optional<Channel> only = std::nullopt);
  ~LogWriter() override;

  // Pushes buffered lines to the OS. Called periodically by the session and at shutdown.
  virtual void flush() = 0;
  // Waits at most `wait` for the compressions queued so far; the rest stay plain (the one in
  // progress is abandoned, its .zst.tmp removed). Later rotations queue again.
  virtual void finishCompression(std::chrono::milliseconds wait) = 0;
  // Flushes, closes the files and finishes compression (options.close_wait). Idempotent.
  virtual void close() = 0;
  virtual LogWriterStats stats() const = 0;
};

// Compresses, on this thread, the plain segments left under `prefix` (for a command that finds them
// after the writer is gone). Returns how many were compressed; *error gets the last failure.
uint64_t compressLeftoverSegments(const std::string& prefix, int zstd_level, std::string* error);

}  // namespace gpufl::log
