#include "agent/durable_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/file_cursor.hpp"

namespace gpufl::agent {
namespace {

std::string why(const std::string& path, const char* what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

bool syncDirOf(const std::string& path, std::string* error) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *error = why(dir, "open");
    return false;
  }
  bool ok = ::fsync(fd) == 0;
  if (!ok) *error = why(dir, "fsync");
  ::close(fd);
  return ok;
}

}  // namespace

bool writeFileAtomic(const std::string& path, std::string_view data, std::string* error) {
  std::string tmp = path + ".tmp";
  ::unlink(
      tmp.c_str());  // a leftover of a killed run; O_EXCL below refuses anything put there since
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
  if (fd < 0) {
    *error = why(tmp, "create");
    return false;
  }
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = why(tmp, "write");
      ::close(fd);
      ::unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    *error = why(tmp, "fsync");
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = why(path, "rename");
    ::unlink(tmp.c_str());
    return false;
  }
  return syncDirOf(path, error);
}

bool readWholeFile(const std::string& path, std::string* out, std::string* error) {
  int fd = openRegularNoFollow(path);
  if (fd < 0) {
    *error = why(path, "open");
    return false;
  }
  out->clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = why(path, "read");
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

bool makeDirs(const std::string& path, std::string* error) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), 0750) != 0 && errno != EEXIST) {
      *error = why(part, "mkdir");
      return false;
    }
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = path + ": not a directory";
    return false;
  }
  return true;
}

}  // namespace gpufl::agent
