#include "log/line_source.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "log/segments.hpp"

namespace gpufl::log {
namespace {

// Text is read and decompressed this much at a time; lines longer than this grow the buffer (up to
// the limit).
constexpr size_t kReadChunk = size_t{1} << 20;

class FileSource final : public LineSource {
 public:
  FileSource(int fd, Format format, size_t max_line) : LineSource(format, max_line), fd_(fd) {}
  ~FileSource() override {
    stopDecompression();  // before the fd it reads goes
    ::close(fd_);
  }

 protected:
  long readRaw(char* dst, size_t n, std::string* error) override {
    for (;;) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) return static_cast<long>(got);
      if (errno == EINTR) continue;
      *error = std::string("read error: ") + std::strerror(errno);
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
  ~MemorySource() override { stopDecompression(); }

 protected:
  long readRaw(char* dst, size_t n, std::string*) override {
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
  uint64_t raw_bytes = 0, decoded_bytes = 0;
  ~Zstd() { ZSTD_freeDStream(stream); }

  // Decodes into out[0, cap): true with *produced > 0, or false at the end of the data. A problem
  // sets *error, and *drop_tail when the text it cuts must not end in a delivered line.
  bool step(LineSource& source, char* out, size_t cap, size_t* produced, std::string* error,
            bool* drop_tail);
};

bool LineSource::Zstd::step(LineSource& source, char* out_buf, size_t cap, size_t* produced,
                            std::string* error, bool* drop_tail) {
  *produced = 0;
  if (failed || stream == nullptr) {
    if (!failed) *error = "cannot create a zstd decompression stream";
    failed = *drop_tail = true;
    return false;
  }
  for (;;) {
    if (in_pos == in_size && !in_eof) {
      const long got = source.readRaw(in.get(), ZSTD_DStreamInSize(), error);
      if (got < 0) {
        failed = *drop_tail = true;
        return false;
      }
      in_size = static_cast<size_t>(got);
      in_pos = 0;
      in_eof = got == 0;
      raw_bytes += static_cast<uint64_t>(got);
    }
    ZSTD_inBuffer input{in.get(), in_size, in_pos};
    ZSTD_outBuffer output{out_buf, cap, 0};
    const size_t ret = ZSTD_decompressStream(stream, &output, &input);
    const bool progressed = input.pos != in_pos || output.pos > 0;
    in_pos = input.pos;
    *produced = output.pos;
    decoded_bytes += output.pos;
    if (ZSTD_isError(ret)) {
      *error = "corrupt zstd data after " + std::to_string(decoded_bytes) + " decoded bytes (" +
               ZSTD_getErrorName(ret) + "); the rest of the file is skipped";
      failed = *drop_tail = true;
      return output.pos > 0;  // lines completed by this last output are still good
    }
    if (progressed) last_ret = ret;
    if (output.pos > 0) return true;
    if (in_eof && in_pos == in_size) {
      // A frame that did not end: the file was cut (a crash during compression, or a copy in
      // progress).
      if (last_ret != 0) {
        *error = "truncated zstd data: the file ends inside a frame after " +
                 std::to_string(decoded_bytes) + " decoded bytes";
        *drop_tail = true;
      }
      return false;
    }
    if (!progressed && in_pos < in_size) {
      *error = "zstd decompression made no progress after " + std::to_string(decoded_bytes) +
               " decoded bytes";
      failed = *drop_tail = true;
      return false;
    }
  }
}

// Decompresses on a thread of its own into a few fixed blocks handed to the reading thread in
// order: memory stays bounded (kBlocks * kBlockBytes) and the reader copies each block into its
// line buffer once, which costs far less than decompressing it.
class LineSource::Decompressor {
 public:
  static constexpr size_t kBlocks = 4, kBlockBytes = size_t{1} << 20;

  explicit Decompressor(LineSource& source) : source_(source) {
    for (auto& b : blocks_) b.data.reset(new char[kBlockBytes]);
    thread_ = std::thread([this] { run(); });
  }
  ~Decompressor() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  // Copies up to `cap` decoded bytes to `out`: their number, 0 at the end of the data (then
  // error(), dropTail() and rawBytes() are final).
  size_t take(char* out, size_t cap) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return filled_ > 0 || done_; });
    if (filled_ == 0) return 0;
    Block& b = blocks_[head_];
    lock.unlock();
    const size_t n = std::min(cap, b.size - b.taken);
    std::memcpy(out, b.data.get() + b.taken, n);
    b.taken += n;
    if (b.taken == b.size) {
      lock.lock();
      head_ = (head_ + 1) % kBlocks;
      --filled_;
      lock.unlock();
      changed_.notify_all();
    }
    return n;
  }
  const std::string& error() const { return error_; }
  bool dropTail() const { return drop_tail_; }
  uint64_t rawBytes() const { return raw_bytes_; }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size = 0, taken = 0;
  };

  void run() {
    Zstd& z = *source_.zstd_;
    size_t tail = 0;
    std::string error;
    bool drop_tail = false;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return filled_ < kBlocks || stop_; });
        if (stop_) break;
      }
      Block& b = blocks_[tail];
      size_t produced = 0, size = 0;
      bool more = true;
      // Fill the block (several zstd steps) so the reader is woken once per block, not per step.
      while (more && size < kBlockBytes) {
        more =
            z.step(source_, b.data.get() + size, kBlockBytes - size, &produced, &error, &drop_tail);
        size += produced;
      }
      std::lock_guard lock(mutex_);
      if (size > 0) {
        b.size = size;
        b.taken = 0;
        tail = (tail + 1) % kBlocks;
        ++filled_;
      }
      if (!more) {
        error_ = std::move(error);
        drop_tail_ = drop_tail;
        raw_bytes_ = z.raw_bytes;
        done_ = true;
        changed_.notify_all();
        break;
      }
      changed_.notify_all();
    }
    std::lock_guard lock(mutex_);
    done_ = true;
    changed_.notify_all();
  }

  LineSource& source_;
  Block blocks_[kBlocks];
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t head_ = 0, filled_ = 0;  // blocks_[head_] is the next to take; filled_ are ready
  bool done_ = false, stop_ = false;
  std::string error_;  // written before done_ under mutex_, read after take() returned 0
  bool drop_tail_ = false;
  uint64_t raw_bytes_ = 0;
  std::thread thread_;
};

// O_NONBLOCK keeps open() of a FIFO from waiting for a writer; fstat then refuses anything but a
// regular file (a FIFO or a device such as /dev/zero could make read() wait or never end). Regular
// files ignore O_NONBLOCK; it is cleared anyway so that reads keep their plain meaning.
std::unique_ptr<LineSource> LineSource::openFile(const std::string& path, size_t max_line_bytes,
                                                 std::string* error, Decompress decompress) {
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
  std::unique_ptr<LineSource> source(new FileSource(fd, format, max_line_bytes));
  source->startDecompression(decompress);
  return source;
}

std::unique_ptr<LineSource> LineSource::fromMemory(std::string_view data, Format format,
                                                   size_t max_line_bytes, Decompress decompress) {
  std::unique_ptr<LineSource> source(new MemorySource(data, format, max_line_bytes));
  source->startDecompression(decompress);
  return source;
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
  const long got = readRaw(buf_.get() + end_, cap_ - end_, &error_);
  if (got < 0) drop_tail_ = true;
  if (got <= 0) return false;
  end_ += static_cast<size_t>(got);
  raw_bytes_ += static_cast<uint64_t>(got);
  decoded_bytes_ += static_cast<uint64_t>(got);
  return true;
}

bool LineSource::fillZstd() {
  if (thread_) return fillFromThread();
  Zstd& z = *zstd_;
  size_t produced = 0;
  const bool more = z.step(*this, buf_.get() + end_, cap_ - end_, &produced, &error_, &drop_tail_);
  end_ += produced;
  decoded_bytes_ += produced;
  raw_bytes_ = z.raw_bytes;
  return more;
}

bool LineSource::fillFromThread() {
  const size_t n = thread_->take(buf_.get() + end_, cap_ - end_);
  end_ += n;
  decoded_bytes_ += n;
  if (n > 0) return true;
  error_ = thread_->error();
  drop_tail_ = drop_tail_ || thread_->dropTail();
  raw_bytes_ = thread_->rawBytes();
  return false;
}

// How many CPUs this process may run on: a second one is worth a decompression thread.
static int usableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

void LineSource::startDecompression(Decompress decompress) {
  if (format_ != Format::Zstd || decompress == Decompress::Inline) return;
  if (decompress == Decompress::Auto && usableCpus() < 2) return;
  thread_ = std::make_unique<Decompressor>(*this);
}

void LineSource::stopDecompression() {
  thread_.reset();
}

}  // namespace gpufl::log
