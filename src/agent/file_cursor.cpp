#include "agent/file_cursor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/line_check.hpp"
#include "log/line_source.hpp"
#include "log/segments.hpp"

namespace gpufl::agent {
namespace {

// First read size; the buffer grows (doubling) only for a longer line. Small, because every round
// reads each followed file's first line to check its identity.
constexpr size_t kChunk = 64 << 10;

std::string sysError(const std::string& path, int err) {
  return path + ": " + std::strerror(err);
}

// Plain text read with pread from a byte offset; complete lines only.
class PlainCursor final : public FileCursor {
 public:
  PlainCursor(int fd, FilePos from, bool closed, size_t max_line)
      : fd_(fd), closed_(closed), max_line_(max_line), file_pos_(from.offset) {
    pos_ = from;
    cap_ = kChunk;
    buf_.reset(new char[cap_ + log::kLinePadding]);
  }
  ~PlainCursor() override { ::close(fd_); }

  ReadStatus next(std::string_view* text) override {
    for (;;) {
      if (begin_ < end_) {
        char* start = buf_.get() + begin_;
        char* nl = static_cast<char*>(std::memchr(start, '\n', end_ - begin_));
        if (nl != nullptr) {
          size_t len = static_cast<size_t>(nl - start);
          begin_ += len + 1;
          pos_.offset += len + 1;
          pos_.lines += 1;
          if (skipping_ || len > max_line_) {
            skipping_ = false;
            pos_.offset += skipped_;
            skipped_ = 0;
            return ReadStatus::TooLong;
          }
          *text = std::string_view(start, len);
          return ReadStatus::Line;
        }
      }
      if (!fill()) {
        if (!error_.empty()) return ReadStatus::Error;
        if (closed_ && (end_ > begin_ || skipping_)) {
          // A segment never grows: a partial last line is torn for good.
          pos_.offset += (end_ - begin_) + skipped_;
          pos_.lines += 1;
          begin_ = end_ = 0;
          skipping_ = false;
          skipped_ = 0;
          return ReadStatus::Torn;
        }
        return ReadStatus::End;
      }
    }
  }
  uint64_t rawBytes() const override { return raw_; }

 private:
  // Reads more text after end_; false at the end of the file (for now) or on error.
  bool fill() {
    if (begin_ > 0) {
      std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ == cap_) {
      if (cap_ >= max_line_) {
        // The line in the buffer is too long: drop what we have and skip to its end.
        skipping_ = true;
        skipped_ += end_;
        end_ = 0;
      } else {
        size_t grown = std::min(cap_ * 2, max_line_ + 1);
        std::unique_ptr<char[]> bigger(new char[grown + log::kLinePadding]);
        std::memcpy(bigger.get(), buf_.get(), end_);
        buf_ = std::move(bigger);
        cap_ = grown;
      }
    }
    for (;;) {
      ssize_t n = ::pread(fd_, buf_.get() + end_, cap_ - end_, static_cast<off_t>(file_pos_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error_ = std::strerror(errno);
        return false;
      }
      if (n == 0) return false;
      end_ += static_cast<size_t>(n);
      file_pos_ += static_cast<uint64_t>(n);
      raw_ += static_cast<uint64_t>(n);
      std::memset(buf_.get() + end_, 0, log::kLinePadding);
      return true;
    }
  }

  int fd_;
  bool closed_;
  size_t max_line_;
  uint64_t file_pos_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, begin_ = 0, end_ = 0;
  bool skipping_ = false;
  uint64_t skipped_ = 0;
  uint64_t raw_ = 0;
};

// A zstd segment: decoded from its start, the lines before the saved position skipped by count.
class ZstdCursor final : public FileCursor {
 public:
  ZstdCursor(std::unique_ptr<log::LineSource> src, FilePos from)
      : src_(std::move(src)), skip_to_(from.lines) {
    pos_ = from;
  }
  ReadStatus next(std::string_view* text) override {
    log::Line line;
    for (;;) {
      if (!src_->next(line)) {
        if (!src_->error().empty()) {
          error_ = src_->error();
          return ReadStatus::Error;
        }
        return ReadStatus::End;
      }
      if (line.number <= skip_to_) continue;
      pos_.lines = line.number;
      pos_.offset += line.text.size() + (line.terminated ? 1 : 0);
      if (line.status == log::Line::Status::TooLong) return ReadStatus::TooLong;
      if (!line.terminated) return ReadStatus::Torn;
      *text = line.text;
      return ReadStatus::Line;
    }
  }
  uint64_t rawBytes() const override { return src_->rawBytes(); }

 private:
  std::unique_ptr<log::LineSource> src_;
  uint64_t skip_to_;
};

}  // namespace

int openRegularNoFollow(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

std::unique_ptr<FileCursor> FileCursor::open(const std::string& path, FilePos from, bool closed,
                                             size_t max_line_bytes, std::string* error) {
  int fd = openRegularNoFollow(path);
  if (fd < 0) {
    *error = sysError(path, errno);
    return nullptr;
  }
  if (!log::isCompressedPath(path))
    return std::make_unique<PlainCursor>(fd, from, closed, max_line_bytes);
  ::close(fd);  // checked above that it is a regular file; LineSource opens it itself
  auto src = log::LineSource::openFile(path, max_line_bytes, error);
  if (!src) return nullptr;
  return std::make_unique<ZstdCursor>(std::move(src), from);
}

uint64_t firstLineHash(const std::string& path) {
  std::string error;
  // The same line limit as reading: a first line the reader accepts must hash here too.
  auto cursor = FileCursor::open(path, FilePos{}, false, log::kDefaultMaxLineBytes, &error);
  if (!cursor) return 0;
  std::string_view text;
  if (cursor->next(&text) != ReadStatus::Line) return 0;
  uint64_t h = fnv1a64(text);
  return h == 0 ? 1 : h;
}

}  // namespace gpufl::agent
