// Streams the lines of one log file, plain or zstd-compressed, through one bounded buffer.
//
// Memory is bounded by the longest accepted line (max_line_bytes) plus a fixed read chunk, whatever
// the file size. Lines come back as views into that buffer, followed by at least kLinePadding
// readable bytes so that a JSON parser needing padding (simdjson) can read them in place without a
// copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gpufl::log {

inline constexpr size_t kLinePadding = 64;
inline constexpr size_t kDefaultMaxLineBytes = size_t{16} << 20;

struct Line {
  enum class Status {
    Ok,       // `text` holds the line
    TooLong,  // longer than max_line_bytes: skipped, `text` is empty
  };
  Status status = Status::Ok;
  std::string_view text;   // without the '\n'; valid until the next call to next()
  uint64_t number = 0;     // 1-based line number within the file
  bool terminated = true;  // false for a last line that has no '\n'
};

class LineSource {
 public:
  enum class Format { Plain, Zstd };
  // Where zstd text is decompressed: Auto = on a thread of its own when this process may run on
  // more than one CPU (sched_getaffinity), so that decompressing overlaps parsing; else inline.
  enum class Decompress { Auto, Inline, Thread };

  // Opens `path` (zstd when it ends in .zst). Returns nullptr and sets *error when it cannot be
  // opened.
  static std::unique_ptr<LineSource> openFile(const std::string& path, size_t max_line_bytes,
                                              std::string* error,
                                              Decompress decompress = Decompress::Auto);
  // Reads from memory that must outlive the source (tests, fuzzing).
  static std::unique_ptr<LineSource> fromMemory(std::string_view data, Format format,
                                                size_t max_line_bytes,
                                                Decompress decompress = Decompress::Auto);
  virtual ~LineSource();

  // The next line; false at the end of the data or after a read/decompression error (see error()).
  // A UTF-8 byte-order mark at the start of the first line is left out of `text`.
  bool next(Line& line);

  // Why reading stopped early: empty when the whole file was read. The bytes decoded before the
  // problem have been delivered as lines, except an incomplete last line cut by the problem.
  const std::string& error() const { return error_; }
  uint64_t rawBytes() const { return raw_bytes_; }          // bytes read from the file (compressed)
  uint64_t decodedBytes() const { return decoded_bytes_; }  // bytes of text produced

 protected:
  LineSource(Format format, size_t max_line_bytes);
  // Reads up to `n` raw (possibly compressed) bytes; 0 at the end; -1 on error with *error set.
  // Called by one thread at a time (the decompression thread, when there is one).
  virtual long readRaw(char* dst, size_t n, std::string* error) = 0;
  // Starts the decompression thread if `decompress` asks for one; the factories call it last.
  void startDecompression(Decompress decompress);
  // Joins the decompression thread: the destructor of a subclass whose readRaw it may be calling
  // must call this first.
  void stopDecompression();
  std::string error_;

 private:
  bool nextLine(Line& line);
  bool fill();  // appends text after end_; false at the end of the data
  bool fillZstd();
  bool fillFromThread();
  bool grow();  // makes room for a longer line; false when it may not grow further

  struct Zstd;
  class Decompressor;
  Format format_;
  size_t max_line_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;  // usable bytes of buf_ (kLinePadding more are allocated)
  size_t begin_ = 0, scan_ = 0,
         end_ = 0;  // unread text is [begin_, end_); no '\n' in [begin_, scan_)
  bool eof_ = false;
  bool skipping_ = false;   // inside a too-long line, discarding until its '\n'
  bool drop_tail_ = false;  // an error cut the text: the incomplete last line is not delivered
  uint64_t line_no_ = 0;
  uint64_t raw_bytes_ = 0, decoded_bytes_ = 0;
  std::unique_ptr<Zstd> zstd_;
  std::unique_ptr<Decompressor> thread_;  // set: zstd_ is used by its thread only
};

}  // namespace gpufl::log
