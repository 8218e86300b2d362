#include "export/atomic_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

namespace gpufl::exporter {
namespace {

// "<dir>/.<name>.tmp-<pid>-<n>": hidden, beside the output (rename() stays within a filesystem),
// unique per process and attempt.
std::string tempName(const std::string& path, uint64_t salt) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(salt);
}

}  // namespace

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      error_ = path_ +
               ": a symbolic link; refusing to write through it (remove it, or name "
               "another file)";
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      error_ = path_ + ": not a regular file; refusing to replace it";
      return;
    }
  }
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint64_t salt = (counter++ << 20) ^ (random() & 0xfffff);
    temp_ = tempName(path_, salt);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    if (errno != EEXIST) break;
  }
  const int err = errno;
  temp_.clear();
  error_ = path_ + ": cannot write: " + std::strerror(err);
}

AtomicOutput::~AtomicOutput() {
  if (!done_) discard();
}

bool AtomicOutput::fail(const std::string& what, int err) {
  if (error_.empty()) error_ = path_ + ": " + what + ": " + std::strerror(err);
  return false;
}

void AtomicOutput::closeFd() {
  if (fd_ >= 0 && ::close(fd_) != 0) fail("close failed", errno);
  fd_ = -1;
}

bool AtomicOutput::write(const char* data, size_t size) {
  if (fd_ < 0 || !error_.empty()) return false;
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write failed", n < 0 ? errno : EIO);
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool AtomicOutput::commit(std::string* error) {
  if (temp_.empty() && error_.empty()) error_ = path_ + ": not open";
  if (error_.empty()) {
    if (fd_ < 0) fd_ = ::open(temp_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0)
      fail("cannot reopen " + temp_, errno);
    else if (::fsync(fd_) != 0)
      fail("sync failed", errno);
  }
  closeFd();
  if (error_.empty() && ::rename(temp_.c_str(), path_.c_str()) != 0)
    fail("cannot rename " + temp_ + " to it", errno);
  if (!error_.empty()) {
    discard();
    if (error) *error = error_;
    return false;
  }
  done_ = true;
  return true;
}

void AtomicOutput::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  done_ = true;
}

}  // namespace gpufl::exporter
