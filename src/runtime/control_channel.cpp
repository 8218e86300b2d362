#include "runtime/control_channel.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace gpufl::runtime {
namespace {

bool fillAddress(const std::string& path, sockaddr_un* addr, std::string* why) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (path.size() >= sizeof addr->sun_path) {
    *why = "socket path too long: " + path;
    return false;
  }
  std::memcpy(addr->sun_path, path.c_str(), path.size() + 1);
  return true;
}

}  // namespace

std::string controlRunDir(bool create, std::string* why) {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  const std::string dir = xdg != nullptr && *xdg != '\0' ? std::string(xdg) + "/gpufl"
                                                         : "/tmp/gpufl-" + std::to_string(getuid());
  if (create && mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *why = "cannot create " + dir + ": " + std::strerror(errno);
    return "";
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) {
    *why = dir + ": " + std::strerror(errno);
    return "";
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
    *why = dir + " is not a private directory of this user (mode 0700 expected)";
    return "";
  }
  return dir;
}

std::string controlSocketPath(const std::string& run_dir, long pid) {
  return run_dir + "/" + std::to_string(pid) + ".sock";
}

bool ControlChannel::start(OnRequest on_request, std::string* why, const std::string& run_dir) {
  if (fd_ >= 0) return true;
  const std::string dir = run_dir.empty() ? controlRunDir(true, why) : run_dir;
  if (dir.empty()) return false;
  path_ = controlSocketPath(dir, getpid());
  sockaddr_un addr{};
  if (!fillAddress(path_, &addr, why)) return false;
  fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    *why = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  unlink(path_.c_str());  // a socket left by an earlier process with this pid
  const mode_t old_mask = umask(077);
  const int bound = bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  umask(old_mask);
  if (bound != 0) {
    *why = "bind " + path_ + ": " + std::strerror(errno);
    close(fd_);
    fd_ = -1;
    return false;
  }
  timeval timeout{0, 250'000};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  on_request_ = std::move(on_request);
  stop_ = false;
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (...) {
    *why = "cannot start the control thread";
    stop();
    return false;
  }
  return true;
}

void ControlChannel::stop() {
  stop_ = true;
  if (thread_.joinable()) {
    // Wake the waiting recv at once (an empty datagram to itself) rather than after its timeout:
    // shutdown() of the program must not wait for the control thread.
    sockaddr_un self{};
    std::string why;
    if (fd_ >= 0 && fillAddress(path_, &self, &why))
      sendto(fd_, "", 0, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&self), sizeof self);
    thread_.join();
  }
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
    unlink(path_.c_str());
  }
}

void ControlChannel::loop() {
  char buf[512];
  while (!stop_) {
    const ssize_t n = recv(fd_, buf, sizeof buf - 1, 0);
    if (n <= 0) continue;  // timeout (check stop_) or an empty datagram
    std::string_view line(buf, static_cast<size_t>(n));
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    const size_t space = line.find(' ');
    const std::string_view verb = line.substr(0, space);
    const std::string_view argument =
        space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    try {
      on_request_(verb, argument);
    } catch (...) {
    }
  }
}

bool sendControlRequest(long pid, std::string_view line, std::string* why,
                        const std::string& run_dir) {
  const std::string dir = run_dir.empty() ? controlRunDir(false, why) : run_dir;
  if (dir.empty()) return false;
  const std::string path = controlSocketPath(dir, pid);
  sockaddr_un addr{};
  if (!fillAddress(path, &addr, why)) return false;
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  const ssize_t sent =
      sendto(fd, line.data(), line.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  const int err = errno;
  close(fd);
  if (sent < 0) {
    *why = err == ENOENT || err == ECONNREFUSED
               ? "process " + std::to_string(pid) + " has no gpufl control socket (" + path +
                     "): it does not run gpufl, runs as another user, or has ended"
               : "send to " + path + ": " + std::strerror(err);
    return false;
  }
  return true;
}

}  // namespace gpufl::runtime
