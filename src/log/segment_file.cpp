#include "log/segment_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace gpufl::log {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::string activePath(const std::string& prefix, Channel channel) {
  return prefix + "." + channelName(channel) + ".log";
}

std::string segmentPath(const std::string& prefix, Channel channel, uint64_t n) {
  char num[24];
  std::snprintf(num, sizeof num, "%06llu", static_cast<unsigned long long>(n));
  return prefix + "." + channelName(channel) + "." + num + ".log";
}

uint64_t nextSegmentNumber(const std::string& prefix, Channel channel) {
  namespace fs = std::filesystem;
  const fs::path p(prefix);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string head = p.filename().string() + "." + channelName(channel) + ".";
  uint64_t highest = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= head.size() || name.compare(0, head.size(), head) != 0) continue;
    std::string_view rest = std::string_view(name).substr(head.size());
    size_t digits = 0;
    uint64_t n = 0;
    while (digits < rest.size() && digits < 18 && rest[digits] >= '0' && rest[digits] <= '9') {
      n = n * 10 + static_cast<uint64_t>(rest[digits] - '0');
      ++digits;
    }
    rest.remove_prefix(digits);
    if (digits < 6 || (rest != ".log" && rest != ".log.zst")) continue;
    if (n > highest) highest = n;
  }
  return highest + 1;
}

ChannelFile::~ChannelFile() {
  close();
}

bool ChannelFile::open(const std::string& prefix, Channel channel, uint64_t rotate_bytes,
                       std::string* error) {
  prefix_ = prefix;
  channel_ = channel;
  path_ = activePath(prefix, channel);
  rotate_bytes_ = rotate_bytes;
  rotate_at_ = rotate_bytes;
  next_segment_ = rotate_bytes ? nextSegmentNumber(prefix, channel) : 1;
  buf_.reserve(kBlockBytes + (64 << 10));
  if (reopen()) return true;
  if (error) *error = last_error_;
  return false;
}

void ChannelFile::attach(std::FILE* stream) {
  stream_ = stream;
  path_ = "<stream>";
  rotate_at_ = 0;
  buf_.reserve(kBlockBytes + (64 << 10));
}

bool ChannelFile::reopen() {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    fail("cannot open " + path_ + " for appending", errno);
    return false;
  }
  struct stat st {};
  file_bytes_ = ::fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  // An earlier run that died mid-write may have left a partial last line: end it so ours parse.
  if (file_bytes_ > 0) {
    const int rd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);  // fd_ is write-only
    char last = '\n';
    if (rd >= 0 && ::pread(rd, &last, 1, static_cast<off_t>(file_bytes_ - 1)) == 1 && last != '\n')
      torn_ = true;
    if (rd >= 0) ::close(rd);
  }
  return true;
}

void ChannelFile::fail(const std::string& what, int err) {
  ++errors_;
  last_error_ = what + ": " + std::strerror(err);
}

bool ChannelFile::writeAll(const char* p, size_t n, size_t* written) {
  if (stream_) {
    const size_t w = std::fwrite(p, 1, n, stream_);
    *written += w;
    if (w == n) return true;
    const int err = errno ? errno : EIO;
    std::clearerr(stream_);
    errno = err;
    return false;
  }
  while (n > 0) {
    const ssize_t r = ::write(fd_, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
    *written += static_cast<size_t>(r);
  }
  return true;
}

bool ChannelFile::writeBuffer() {
  if (buf_.empty()) return true;
  if (fd_ < 0 && !stream_ && !reopen()) {
    bytes_dropped_ += buf_.size();
    buf_.clear();
    return false;
  }
  size_t written = 0;
  if (torn_) {
    if (!writeAll("\n", 1, &written)) {
      fail("write " + path_, errno);
      bytes_dropped_ += buf_.size();
      buf_.clear();
      return false;
    }
    torn_ = false;
    ++file_bytes_;
    written = 0;
  }
  const bool ok = writeAll(buf_.data(), buf_.size(), &written);
  file_bytes_ += written;
  if (!ok) {
    fail("write " + path_, errno);
    bytes_dropped_ += buf_.size() - written;
    torn_ = written > 0 && buf_[written - 1] != '\n';
  }
  buf_.clear();
  return ok;
}

ChannelFile::Outcome ChannelFile::service() {
  if (rotate_at_ != 0 && file_bytes_ + buf_.size() >= rotate_at_) return rotate();
  Outcome o;
  o.lost = !writeBuffer();
  return o;
}

ChannelFile::Outcome ChannelFile::rotate() {
  Outcome o;
  o.lost = !writeBuffer();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  // Never overwrite a segment that is already there (another writer on the same prefix, a restored
  // backup).
  std::string segment = segmentPath(prefix_, channel_, next_segment_);
  while (exists(segment) || exists(segment + ".zst"))
    segment = segmentPath(prefix_, channel_, ++next_segment_);
  if (::rename(path_.c_str(), segment.c_str()) != 0) {
    fail("cannot rename " + path_ + " to " + segment, errno);
    // Keep appending to the active file; retry only after another rotate_bytes, not on every line.
    reopen();
    rotate_at_ = file_bytes_ + rotate_bytes_;
    return o;
  }
  ++next_segment_;
  rotate_at_ = rotate_bytes_;
  torn_ = false;
  reopen();  // on failure the next write retries, dropping lines while it cannot
  o.closed_segment = std::move(segment);
  return o;
}

bool ChannelFile::flush() {
  bool ok = writeBuffer();
  if (stream_ && std::fflush(stream_) != 0) {
    fail("flush " + path_, errno);
    ok = false;
  }
  return ok;
}

void ChannelFile::close() {
  flush();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  stream_ = nullptr;
}

}  // namespace gpufl::log
