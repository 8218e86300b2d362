#include "log/compressor.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace gpufl::log {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct CctxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

bool writeAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t r = ::write(fd, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

std::string sysError(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// Streams src into the open file `out` as one zstd frame. kCancelled when *cancel was set.
CompressResult compressInto(int in, int out, int level, const std::string& src,
                            const std::string& tmp, std::string* error,
                            const std::atomic<bool>* cancel) {
  constexpr CompressResult kFailed = CompressResult::kFailed;
  std::unique_ptr<ZSTD_CCtx, CctxFree> cctx(ZSTD_createCCtx());
  if (!cctx) return *error = "zstd: out of memory", kFailed;
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  std::vector<char> ibuf(256 << 10), obuf(ZSTD_CStreamOutSize());
  for (;;) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed))
      return CompressResult::kCancelled;
    const ssize_t r = ::read(in, ibuf.data(), ibuf.size());
    if (r < 0) {
      if (errno == EINTR) continue;
      return *error = sysError("cannot read", src), kFailed;
    }
    const bool last = r == 0;
    ZSTD_inBuffer ib{ibuf.data(), static_cast<size_t>(r), 0};
    const ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
    bool done = false;
    while (!done) {
      ZSTD_outBuffer ob{obuf.data(), obuf.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx.get(), &ob, &ib, mode);
      if (ZSTD_isError(left))
        return *error = std::string("zstd: ") + ZSTD_getErrorName(left), kFailed;
      if (!writeAll(out, obuf.data(), ob.pos))
        return *error = sysError("cannot write", tmp), kFailed;
      done = last ? left == 0 : ib.pos == ib.size;
    }
    if (last) return CompressResult::kDone;
  }
}

bool sameFile(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

CompressResult compressSegment(const std::string& src, const std::string& dst, int level,
                               std::string* error, const std::atomic<bool>* cancel) {
  constexpr CompressResult kFailed = CompressResult::kFailed;
  const std::string tmp = dst + ".tmp";
  CompressResult result = kFailed;
  {
    Fd in{::open(src.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)};
    if (in.fd < 0) {
      if (errno == ENOENT && exists(dst)) return CompressResult::kSkipped;
      return *error = sysError("cannot open", src), kFailed;
    }
    struct stat st {};
    if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode))
      return *error = "cannot compress " + src + ": not a regular file", kFailed;
    // The lock is released when `in` closes, after src is deleted: a second compressor either fails
    // to take it, or takes it on a file no longer at `src` (sameFile).
    if (::flock(in.fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) return CompressResult::kSkipped;
      return *error = sysError("cannot lock", src), kFailed;
    }
    if (!sameFile(in.fd, src)) return CompressResult::kSkipped;
    ::unlink(tmp.c_str());  // stale: whoever wrote it held this lock and is gone
    // The segment's own mode (0640 at most), less the umask's bits: never wider than its source.
    Fd out{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  st.st_mode & 0640)};
    if (out.fd < 0) return *error = sysError("cannot create", tmp), kFailed;
    result = compressInto(in.fd, out.fd, level, src, tmp, error, cancel);
    // The plain segment is deleted next, so the compressed one must be on disk first.
    if (result == CompressResult::kDone && ::fsync(out.fd) != 0)
      result = (*error = sysError("cannot sync", tmp), kFailed);
    if (result == CompressResult::kDone && ::rename(tmp.c_str(), dst.c_str()) != 0)
      result = (*error = sysError("cannot rename", tmp), kFailed);
    if (result != CompressResult::kDone) {
      ::unlink(tmp.c_str());
      return result;
    }
    if (::unlink(src.c_str()) != 0) return *error = sysError("cannot delete", src), kFailed;
  }
  return CompressResult::kDone;
}

void SegmentCompressor::submit(std::string segment) {
  std::lock_guard lock(mu_);
  queue_.push_back(std::move(segment));
  if (!thread_.joinable()) {
    stopping_ = false;
    thread_ = std::thread([this] { run(); });
  }
  cv_.notify_one();
}

void SegmentCompressor::drain(std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  if (!thread_.joinable()) return;
  stopping_ = true;
  cv_.notify_one();
  const auto done = [&] { return finished_; };
  if (wait == std::chrono::milliseconds::max()) {
    idle_cv_.wait(lock, done);
  } else if (!idle_cv_.wait_for(lock, wait, done)) {
    cancel_.store(true);  // the thread stops within one chunk
  }
  lock.unlock();
  thread_.join();
  lock.lock();
  cancel_.store(false);
  stopping_ = false;
  finished_ = false;
}

std::string SegmentCompressor::lastError() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

void SegmentCompressor::run() {
  // Compression competes with the profiled program for CPU; let the program win (Linux: per-thread
  // nice).
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  pthread_setname_np(pthread_self(), "gpufl-zstd");  // its CPU time in health records
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (cancel_.load()) {
      left_plain_.fetch_add(queue_.size());
      queue_.clear();
    }
    if (queue_.empty()) break;  // stopping, and everything queued is done or abandoned
    const std::string segment = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::string error;
    const CompressResult r = compressSegment(segment, segment + ".zst", level_, &error, &cancel_);
    lock.lock();
    if (r == CompressResult::kDone) {
      completed_.fetch_add(1);
    } else if (r == CompressResult::kCancelled) {
      left_plain_.fetch_add(1);
    } else if (r == CompressResult::kFailed) {
      errors_.fetch_add(1);
      last_error_ = error;
    }
  }
  finished_ = true;
  idle_cv_.notify_all();
}

}  // namespace gpufl::log
