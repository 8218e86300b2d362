// Reads the complete lines of one channel file from a saved position: a live active file (which may
// still grow), a closed plain segment, or a zstd segment (through log::LineSource).
//
// A position is both a byte offset into the decoded text and a line count, because the two stay
// equal between a plain segment and its .zst (same text) while a .zst can only be resumed by line.
// Memory is bounded by the longest accepted line plus one read chunk, whatever the file size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gpufl::agent {

struct FilePos {
  uint64_t offset = 0;  // decoded bytes consumed (exact for plain files)
  uint64_t lines = 0;   // lines consumed, including skipped ones
};

enum class ReadStatus {
  Line,     // `text` holds one complete line (followed by >= 64 readable bytes)
  TooLong,  // a line longer than the limit was skipped
  Torn,     // a closed file ends inside a line: that partial line was skipped
  End,      // nothing more now (a live file may grow later)
  Error,    // reading failed (error()); what came before was delivered
};

class FileCursor {
 public:
  virtual ~FileCursor() = default;
  // Opens `path` without following a symbolic link. `closed`: the file will not grow (a segment),
  // so a last line without '\n' is torn rather than not yet complete. nullptr with *error on
  // failure.
  static std::unique_ptr<FileCursor> open(const std::string& path, FilePos from, bool closed,
                                          size_t max_line_bytes, std::string* error);
  virtual ReadStatus next(std::string_view* text) = 0;
  const FilePos& pos() const { return pos_; }
  const std::string& error() const { return error_; }
  // Raw bytes read from disk so far (compressed for .zst).
  virtual uint64_t rawBytes() const = 0;

 protected:
  FilePos pos_;
  std::string error_;
};

// Hash of the first line of `path` (0 when it has no complete first line yet): identifies a file
// across renames and compression, since every session file starts with its own session_start.
uint64_t firstLineHash(const std::string& path);

// Opens a path for reading only if it is a regular file reached without a symbolic link in its last
// component; -1 with errno otherwise.
int openRegularNoFollow(const std::string& path);

}  // namespace gpufl::agent
