#include "log/line_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "log/segments.hpp"

namespace gpufl::log {
namespace {

// Text is read and decompressed this much at a time; lines longer than this grow the buffer (up to
// the limit).
constexpr size_t kReadChunk = size_t{1} << 20;

class FileSource final : public LineSource {
 public:
  FileSource(int fd, Format format, size_t max_line) : LineSource(format, max_line), fd_(fd) {}
  ~FileSource() override { ::close(fd_); }

 protected:
  long readRaw(char* dst, size_t n) override {
    for (;;) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) return static_cast<long>(got);
      if (errno == EINTR) continue;
      error_ = std::string("read error: ") + std::strerror(errno);
      return -1;
    }
  }

 private:
  int fd_;
};

class MemorySource final : public LineSource {
 public:
  MemorySource(std::string_view data, Format format, size_t max_line)
      : LineSource(format, max_line), data_(data) {}

 protected:
  long readRaw(char* dst, size_t n) override {
    n = std::min(n, data_.size());
    std::memcpy(dst, data_.data(), n);
    data_.remove_prefix(n);
    return static_cast<long>(n);
  }

 private:
  std::string_view data_;
};

const char* fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

struct LineSource::Zstd {
  ZSTD_DStream* stream = ZSTD_createDStream();
  std::unique_ptr<char[]> in{new char[ZSTD_DStreamInSize()]};
  size_t in_size = 0, in_pos = 0;
  bool in_eof = false;
  bool failed = false;
  // The result of the last call that made progress: 0 when it ended a frame (a clean place to
  // stop).
  size_t last_ret = 0;
  ~Zstd() { ZSTD_freeDStream(stream); }
};

// O_NONBLOCK keeps open() of a FIFO from waiting for a writer; fstat then refuses anything but a
// regular file (a FIFO or a device such as /dev/zero could make read() wait or never end). Regular
// files ignore O_NONBLOCK; it is cleared anyway so that reads keep their plain meaning.
std::unique_ptr<LineSource> LineSource::openFile(const std::string& path, size_t max_line_bytes,
                                                 std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (error) *error = std::string("cannot open: ") + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0)
    why = std::string("cannot stat: ") + std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = std::string("not a regular file: ") + fileKind(st.st_mode);
  else if (const int flags = ::fcntl(fd, F_GETFL);
           flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
    why = std::string("cannot set blocking mode: ") + std::strerror(errno);
  if (!why.empty()) {
    ::close(fd);
    if (error) *error = std::move(why);
    return nullptr;
  }
  const Format format = isCompressedPath(path) ? Format::Zstd : Format::Plain;
  return std::unique_ptr<LineSource>(new FileSource(fd, format, max_line_bytes));
}

std::unique_ptr<LineSource> LineSource::fromMemory(std::string_view data, Format format,
                                                   size_t max_line_bytes) {
  return std::unique_ptr<LineSource>(new MemorySource(data, format, max_line_bytes));
}

LineSource::LineSource(Format format, size_t max_line_bytes)
    // Clamped so that the buffer size arithmetic below cannot overflow whatever the caller asks
    // for.
    : format_(format), max_line_(std::min(max_line_bytes, size_t{1} << 31)) {
  cap_ = std::min(kReadChunk, max_line_ + 1);
  // Zero-initialised so that the padding simdjson may read past a line is never indeterminate.
  buf_.reset(new char[cap_ + kLinePadding]());
  if (format_ == Format::Zstd) zstd_ = std::make_unique<Zstd>();
}

LineSource::~LineSource() = default;

// A UTF-8 byte-order mark is not JSON; some editors put one at the start of a file, never
// elsewhere.
bool LineSource::next(Line& line) {
  if (!nextLine(line)) return false;
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (line.number == 1 && line.text.substr(0, kBom.size()) == kBom)
    line.text.remove_prefix(kBom.size());
  return true;
}

bool LineSource::nextLine(Line& line) {
  for (;;) {
    if (scan_ < end_) {
      char* const base = buf_.get();
      const void* nl = std::memchr(base + scan_, '\n', end_ - scan_);
      if (nl != nullptr) {
        const size_t pos = static_cast<size_t>(static_cast<const char*>(nl) - base);
        const size_t start = begin_;
        begin_ = scan_ = pos + 1;
        line.number = ++line_no_;
        line.terminated = true;
        const bool too_long = skipping_ || pos - start > max_line_;
        skipping_ = false;
        line.status = too_long ? Line::Status::TooLong : Line::Status::Ok;
        line.text = too_long ? std::string_view{} : std::string_view(base + start, pos - start);
        return true;
      }
      scan_ = end_;
    }
    if (eof_) {
      if (begin_ == end_ && !skipping_) return false;
      // The last line has no '\n'. After an error it is a fragment cut by the error, not a line.
      const size_t start = begin_;
      const bool too_long = skipping_ || end_ - start > max_line_;
      begin_ = scan_ = end_;
      skipping_ = false;
      if (drop_tail_) return false;
      line.number = ++line_no_;
      line.terminated = false;
      line.status = too_long ? Line::Status::TooLong : Line::Status::Ok;
      line.text =
          too_long ? std::string_view{} : std::string_view(buf_.get() + start, end_ - start);
      return true;
    }
    // No '\n' in what is buffered: make room and read more.
    if (skipping_ || end_ - begin_ > max_line_) {
      skipping_ = true;  // the line is already too long: drop what we have of it
      begin_ = scan_ = end_ = 0;
    } else if (begin_ > 0) {
      std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      scan_ = end_;  // everything kept was already searched for '\n'
      begin_ = 0;
    }
    if (end_ == cap_ && !grow()) {
      skipping_ = true;
      begin_ = scan_ = end_ = 0;
    }
    if (!fill()) eof_ = true;
  }
}

bool LineSource::grow() {
  if (cap_ > max_line_) return false;
  const size_t new_cap = std::min(cap_ * 2, max_line_ + 1);
  std::unique_ptr<char[]> bigger(new char[new_cap + kLinePadding]());
  std::memcpy(bigger.get(), buf_.get(), end_);
  buf_ = std::move(bigger);
  cap_ = new_cap;
  return true;
}

bool LineSource::fill() {
  if (format_ == Format::Zstd) return fillZstd();
  const long got = readRaw(buf_.get() + end_, cap_ - end_);
  if (got < 0) drop_tail_ = true;
  if (got <= 0) return false;
  end_ += static_cast<size_t>(got);
  raw_bytes_ += static_cast<uint64_t>(got);
  decoded_bytes_ += static_cast<uint64_t>(got);
  return true;
}

bool LineSource::fillZstd() {
  Zstd& z = *zstd_;
  if (z.failed || z.stream == nullptr) {
    if (!z.failed) error_ = "cannot create a zstd decompression stream";
    z.failed = true;
    drop_tail_ = true;
    return false;
  }
  for (;;) {
    if (z.in_pos == z.in_size && !z.in_eof) {
      const long got = readRaw(z.in.get(), ZSTD_DStreamInSize());
      if (got < 0) {
        z.failed = drop_tail_ = true;
        return false;
      }
      z.in_size = static_cast<size_t>(got);
      z.in_pos = 0;
      z.in_eof = got == 0;
      raw_bytes_ += static_cast<uint64_t>(got);
    }
    ZSTD_inBuffer in{z.in.get(), z.in_size, z.in_pos};
    ZSTD_outBuffer out{buf_.get() + end_, cap_ - end_, 0};
    const size_t ret = ZSTD_decompressStream(z.stream, &out, &in);
    const bool progressed = in.pos != z.in_pos || out.pos > 0;
    z.in_pos = in.pos;
    end_ += out.pos;
    decoded_bytes_ += out.pos;
    if (ZSTD_isError(ret)) {
      error_ = "corrupt zstd data after " + std::to_string(decoded_bytes_) + " decoded bytes (" +
               ZSTD_getErrorName(ret) + "); the rest of the file is skipped";
      z.failed = drop_tail_ = true;
      return out.pos > 0;  // lines completed by this last output are still good
    }
    if (progressed) z.last_ret = ret;
    if (out.pos > 0) return true;
    if (z.in_eof && z.in_pos == z.in_size) {
      // A frame that did not end: the file was cut (a crash during compression, or a copy in
      // progress).
      if (z.last_ret != 0) {
        error_ = "truncated zstd data: the file ends inside a frame after " +
                 std::to_string(decoded_bytes_) + " decoded bytes";
        drop_tail_ = true;
      }
      return false;
    }
    if (!progressed && z.in_pos < z.in_size) {
      error_ = "zstd decompression made no progress after " + std::to_string(decoded_bytes_) +
               " decoded bytes";
      z.failed = drop_tail_ = true;
      return false;
    }
  }
}

}  // namespace gpufl::log
