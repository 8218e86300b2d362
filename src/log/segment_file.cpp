#include "log/segment_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "log/kernel_block.hpp"

namespace gpufl::log {
namespace {

constexpr mode_t kFileMode = 0640;

// lstat: a dangling symbolic link exists too.
bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Renames `from` to `to` unless `to` exists (as anything, a dangling link included). 0, or the
// errno of the failure: EEXIST when `to` exists.
int renameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno;
  // A file system without RENAME_NOREPLACE: link(2) refuses an existing name the same way.
  if (::link(from.c_str(), to.c_str()) == 0) {
    ::unlink(from.c_str());
    return 0;
  }
  if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS) return errno;
  // Neither (e.g. vfat): check, then rename; not atomic against a concurrent creator.
  if (exists(to)) return EEXIST;
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

std::string openError(int err) {
  if (err == ELOOP) return "it is a symbolic link (gpufl does not follow links at files it writes)";
  if (err == EINVAL) return "it is not a regular file";
  return std::strerror(err);
}

// The numbers of `<prefix>.<channel>.<N>.log[.zst]` files, with each file's path; N has at least 6
// digits.
template <typename F>
void forEachSegment(const std::string& prefix, Channel channel, F&& f) {
  namespace fs = std::filesystem;
  const fs::path p(prefix);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string base = p.filename().string();
  const std::string head = base + "." + std::string(channelName(channel)) + ".";
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
    // prefix ends with base (checkPrefix), so this keeps the directory as the caller wrote it.
    f(n, rest == ".log.zst", prefix + name.substr(base.size()));
  }
}

}  // namespace

std::string activePath(const std::string& prefix, Channel channel) {
  return prefix + "." + std::string(channelName(channel)) + ".log";
}

std::string segmentPath(const std::string& prefix, Channel channel, uint64_t n) {
  char num[24];
  std::snprintf(num, sizeof num, "%06llu", static_cast<unsigned long long>(n));
  return prefix + "." + std::string(channelName(channel)) + "." + num + ".log";
}

uint64_t nextSegmentNumber(const std::string& prefix, Channel channel) {
  uint64_t highest = 0;
  forEachSegment(prefix, channel,
                 [&](uint64_t n, bool, const std::string&) { highest = std::max(highest, n); });
  return highest + 1;
}

std::vector<std::string> plainSegments(const std::string& prefix, Channel channel) {
  std::vector<std::pair<uint64_t, std::string>> found;
  forEachSegment(prefix, channel, [&](uint64_t n, bool compressed, const std::string& path) {
    if (!compressed) found.emplace_back(n, path);
  });
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& [n, path] : found) paths.push_back(std::move(path));
  return paths;
}

std::string checkPrefix(const std::string& prefix) {
  if (prefix.empty()) return "log_path is empty";
  const size_t slash = prefix.rfind('/');
  const std::string base = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") {
    return "log_path '" + prefix +
           "' names a directory, not a file-name prefix (e.g. 'logs/run' writes "
           "logs/run.device.log, logs/run.scope.log and logs/run.system.log)";
  }
  return {};
}

int openForAppend(const std::string& path, bool* created) {
  // Create-or-open in two steps so that an existing file is checked (a regular file, no link);
  // retried when the file vanishes in between. A created file is 0640 less the umask's bits.
  for (int attempt = 0; attempt < 4; ++attempt) {
    int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    kFileMode);
    if (fd >= 0) {
      *created = true;
      return fd;
    }
    if (errno != EEXIST) return -1;
    fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      errno = EINVAL;
      return -1;
    }
    *created = false;
    return fd;
  }
  errno = EAGAIN;
  return -1;
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
  bool created = false;
  fd_ = openForAppend(path_, &created);
  if (fd_ < 0) {
    const int err = errno;
    file_bytes_ = 0;
    ++errors_;
    last_error_ = "cannot open " + path_ + " for appending: " + openError(err);
    return false;
  }
  struct stat st {};
  file_bytes_ = ::fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  // An earlier run that died mid-write may have left a partial last line: end it so ours parse.
  char last = '\n';
  if (file_bytes_ > 0 && ::pread(fd_, &last, 1, static_cast<off_t>(file_bytes_ - 1)) == 1 &&
      last != '\n')
    torn_ = true;
  return true;
}

void ChannelFile::fail(const std::string& what, int err) {
  ++errors_;
  last_error_ = what + ": " + std::strerror(err);
}

void ChannelFile::drop(size_t from) {
  bytes_dropped_ += buf_.size() - from;
  // Every line that lost bytes, the one cut at `from` too (buf_ starts at a line start); a
  // kernel_block line stands for many records.
  size_t at = from == 0 ? 0 : buf_.rfind('\n', from - 1);
  at = at == std::string::npos || from == 0 ? 0 : at + 1;
  while (at < buf_.size()) {
    const size_t nl = buf_.find('\n', at);
    const size_t stop = nl == std::string::npos ? buf_.size() : nl;
    if (nl != std::string::npos)
      records_dropped_ += recordsInLine(std::string_view(buf_).substr(at, stop - at));
    at = stop + 1;
  }
  buf_.clear();
  failing_ = true;
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
    drop(0);
    return false;
  }
  size_t written = 0;
  if (torn_) {
    if (!writeAll("\n", 1, &written)) {
      fail("write " + path_, errno);
      drop(0);
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
    torn_ = written > 0 && buf_[written - 1] != '\n';
    drop(written);
    return false;
  }
  buf_.clear();
  failing_ = false;
  return true;
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
  // Only a file that reached its size becomes a segment: while writes fail (a full disk) it does
  // not, and rotating anyway would make an empty segment per block of lost lines.
  if (file_bytes_ < rotate_at_) return o;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  // Never over an existing file (another writer on the same prefix, a restored backup, a link
  // someone placed): take the next free number.
  std::string segment;
  int err = EEXIST;
  for (int tries = 0; tries < 1000 && err == EEXIST; ++tries, ++next_segment_) {
    segment = segmentPath(prefix_, channel_, next_segment_);
    if (!exists(segment + ".zst")) err = renameNoReplace(path_, segment);
  }
  torn_ = false;
  if (err != 0) {
    fail("cannot rename " + path_ + " to " + segment, err);
    // Keep appending to the active file; retry only after another rotate_bytes, not on every line.
    reopen();
    rotate_at_ = file_bytes_ + rotate_bytes_;
    return o;
  }
  rotate_at_ = rotate_bytes_;
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
