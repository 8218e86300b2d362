// One channel's output: a buffer of complete lines, the active file they go to, and its rotation
// into numbered segments. Lines are written in large blocks with write(2); an I/O failure drops the
// buffered lines, counts them (records and bytes) and is remembered, never thrown, because the
// profiled program must not die of a full disk. [writer thread] except where noted.
//
// Files: created 0640 less what the umask takes away (0600 under umask 077: a stricter umask is
// the user's choice, never widened); a symbolic link (or anything but a regular file) at a
// path gpufl creates or appends to is refused, never followed; a segment is made by renaming the
// active file to a name nothing holds (RENAME_NOREPLACE), never over an existing file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"

namespace gpufl::log {

// `<prefix>.<channel>.log`
std::string activePath(const std::string& prefix, Channel channel);
// `<prefix>.<channel>.<NNNNNN>.log`
std::string segmentPath(const std::string& prefix, Channel channel, uint64_t n);
// 1 + the highest N among `<prefix>.<channel>.<N>.log[.zst]` on disk (1 when there is none).
uint64_t nextSegmentNumber(const std::string& prefix, Channel channel);
// The plain segments `<prefix>.<channel>.<N>.log` on disk, by increasing N: closed segments whose
// compression has not finished (a writer killed or shut down first).
std::vector<std::string> plainSegments(const std::string& prefix, Channel channel);
// Empty when `prefix` can name log files; otherwise why not. The last component must be a name:
// "logs/" (or "", ".", "..") would write hidden files such as "logs/.device.log".
std::string checkPrefix(const std::string& prefix);

// Opens `path` for appending: an existing regular file, or a new one created exclusively with mode
// 0640 (*created says which). -1 with errno set on failure; ELOOP for a symbolic link, EINVAL for
// something that is not a regular file.
int openForAppend(const std::string& path, bool* created);

class ChannelFile {
 public:
  static constexpr size_t kBlockBytes = 256 << 10;

  // What the slow path did; the writer resets its kernel delta state on either and compresses
  // closed segments.
  struct Outcome {
    bool lost = false;           // buffered lines were dropped after an I/O error
    std::string closed_segment;  // path of a segment closed by rotation, or empty
  };

  ChannelFile() = default;
  ChannelFile(const ChannelFile&) = delete;
  ChannelFile& operator=(const ChannelFile&) = delete;
  ~ChannelFile();

  // Opens the active file of `channel` under `prefix` for appending (openForAppend).
  // rotate_bytes 0 = never rotate. False, with *error naming the path and the system's reason, on
  // failure.
  bool open(const std::string& prefix, Channel channel, uint64_t rotate_bytes, std::string* error);
  // Stream mode: lines go to `stream` with fwrite; never rotates; the stream is not closed.
  void attach(std::FILE* stream);

  // Complete lines are appended here directly by the formatters.
  std::string& buffer() { return buf_; }
  // Cheap check after each line: true when a block is due or the file passed rotate_bytes; then
  // call service(). While writes fail, only a full block is due: one failing write(2) per block,
  // not per line.
  bool needsService() const {
    return buf_.size() >= kBlockBytes ||
           (!failing_ && rotate_at_ != 0 && file_bytes_ + buf_.size() >= rotate_at_);
  }
  // True when the next service() rotates: the active file ends there.
  bool rotationDue() const { return rotate_at_ != 0 && file_bytes_ + buf_.size() >= rotate_at_; }
  Outcome service();
  // Writes everything buffered (to the OS, not to disk) and flushes a stream. False when lines were
  // lost.
  bool flush();
  void close();

  uint64_t errors() const { return errors_; }
  uint64_t bytesDropped() const { return bytes_dropped_; }
  // Records (lines) that did not reach the file whole; a line cut by a failed write counts.
  uint64_t recordsDropped() const { return records_dropped_; }
  const std::string& lastError() const { return last_error_; }

 private:
  bool writeBuffer();
  bool writeAll(const char* p, size_t n, size_t* written);
  bool reopen();
  void fail(const std::string& what, int err);
  void drop(size_t from);  // drops buf_[from..], counting its lines, and clears buf_
  Outcome rotate();

  std::string prefix_;
  Channel channel_ = Channel::Device;
  std::string path_;
  int fd_ = -1;
  std::FILE* stream_ = nullptr;
  std::string buf_;
  uint64_t file_bytes_ = 0;  // length of the active file (what reached it)
  uint64_t rotate_bytes_ = 0;
  uint64_t rotate_at_ = 0;  // file length that triggers rotation; pushed back after a failed rename
  uint64_t next_segment_ = 1;
  bool torn_ = false;     // the file ends inside a line (a write failed midway): start with '\n'
  bool failing_ = false;  // the latest write failed
  uint64_t errors_ = 0;
  uint64_t bytes_dropped_ = 0;
  uint64_t records_dropped_ = 0;
  std::string last_error_;
};

}  // namespace gpufl::log
