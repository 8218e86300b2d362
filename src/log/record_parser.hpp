// Line -> event: decodes NDJSON records of one session and hands them to an EventVisitor, with the
// warnings the format's reader rules ask for (docs/log-format.md). simdjson stays inside the .cpp
// files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/event_visitor.hpp"
#include "log/reader.hpp"

namespace gpufl::log {

// Keeps the first `max` warnings and counts all of them.
class WarningList {
 public:
  explicit WarningList(size_t max) : max_(max) {}
  void add(std::string_view file, uint64_t line, std::string message);
  uint64_t count() const { return count_; }
  std::vector<ReadWarning>& kept() { return kept_; }

 private:
  size_t max_;
  uint64_t count_ = 0;
  std::vector<ReadWarning> kept_;
};

// Decodes the lines of a sequence of files for one session.
//
// Kernel events carry their start and correlation id either absolute or as differences from the
// previous kernel event of the session in the same file, so the decoder keeps that chain per file:
// call beginFile() before a file's first line and endFile() after its last. Once a line is lost
// (garbage, too long, a kernel event without usable position fields) differences cannot be trusted
// until the next absolute record; the kernel events in between are skipped and counted in one
// warning.
class RecordDecoder {
 public:
  // Delivers the records whose sid equals `sid` (every record when `sid` is empty).
  RecordDecoder(std::string sid, EventVisitor& visitor, WarningList& warnings);
  ~RecordDecoder();
  RecordDecoder(const RecordDecoder&) = delete;
  RecordDecoder& operator=(const RecordDecoder&) = delete;

  // For a sid that several sessions share: deliver only the records of the session `session_id`,
  // i.e. those that follow its session_start in their channel, until the next session_start of the
  // sid. Records before the first session_start of the sid in a channel cannot be attributed; they
  // are skipped and counted in one warning per file. A file's channel is the one its name gives
  // (channelOfPath); a new channel starts unattributed.
  void separateBySessionId(std::string session_id);

  void beginFile(const std::string& file);
  // `text` is one line without its '\n', followed by at least kLinePadding readable bytes (see
  // LineSource). `terminated` is false for a last line without '\n' (its problems are reported as a
  // truncation).
  void decodeLine(std::string_view text, uint64_t line_no, bool terminated);
  // A line that could not be read at all (longer than the limit): warns and breaks the kernel
  // chain.
  void lostLine(uint64_t line_no, std::string message);
  void endFile();
  // After the last file: warns about kernel ids that kernel events named but no kernel_def of the
  // session defined (the first such event's file and line).
  void endRead();

  uint64_t delivered() const;
  // Damage met so far (each case is also a warning): lines that could not be used (not JSON, too
  // long, a field error in a record of the session), and kernel events lost beyond those lines
  // (inside a kernel_block that cannot be decoded, or skipped for want of a resync point).
  uint64_t damagedLines() const;
  uint64_t lostKernels() const;

  // Kernel events in the writer's own layout are read by a scanner made for it (kernel_line.hpp);
  // any other line, and any line it does not fully recognise, by simdjson. Both give the same
  // events and warnings; tests turn the scanner off to compare them.
  void useWriterFastPath(bool on);
  uint64_t fastPathLines() const;  // lines the scanner decoded

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What session selection needs from single lines (same padding contract as
// RecordDecoder::decodeLine).
class SessionProbe {
 public:
  SessionProbe();
  ~SessionProbe();
  SessionProbe(const SessionProbe&) = delete;
  SessionProbe& operator=(const SessionProbe&) = delete;

  // True when `text` is a readable session_start record; fills *out.
  bool sessionStart(std::string_view text, SessionListing* out);
  // The sid of any readable record; empty when there is none.
  std::string sidOf(std::string_view text);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpufl::log
