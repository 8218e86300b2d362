#include "cuda/gpu_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace gpufl::cuda {
namespace {

std::string sanitized(const std::string& id) {
  std::string out = id;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return out;
}

// The holder's pid, as it wrote it into the file (0 when unreadable).
long holderPid(int fd) {
  char text[32] = {};
  const ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
  return n > 0 ? std::strtol(text, nullptr, 10) : 0;
}

}  // namespace

GpuClaim::~GpuClaim() {
  release();
}

bool GpuClaim::claim(const std::string& feature, const std::string& gpu_id, std::string* why,
                     const std::string& dir) {
  if (fd_ >= 0) return true;
  const std::string path = dir + "/gpufl-" + sanitized(feature) + "-" + sanitized(gpu_id) + ".lock";
  // World-writable so that processes of other users can take their turn; read-only when a file
  // made by another user's stricter umask is there (flock works on read-only descriptors too).
  const mode_t old_mask = umask(0);
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  umask(old_mask);
  if (fd < 0) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {  // no lock file possible: claim nothing, and let the feature try on its own
    if (why) *why = "cannot open " + path + ": " + std::strerror(errno);
    return true;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (why) {
      const long pid = holderPid(fd);
      *why = (pid > 0 ? "pid " + std::to_string(pid) : std::string("another process")) + " holds " +
             feature + " on GPU " + gpu_id + " (" + path + ")";
    }
    close(fd);
    return false;
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
  fd_ = fd;
  return true;
}

void GpuClaim::release() {
  if (fd_ < 0) return;
  flock(fd_, LOCK_UN);
  close(fd_);
  fd_ = -1;
}

}  // namespace gpufl::cuda
