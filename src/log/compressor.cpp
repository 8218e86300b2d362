#include "log/compressor.hpp"

#include <fcntl.h>
#include <sys/resource.h>
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

// Streams src into the open file `out` as one zstd frame.
bool compressInto(int in, int out, int level, const std::string& src, const std::string& tmp,
                  std::string* error) {
  std::unique_ptr<ZSTD_CCtx, CctxFree> cctx(ZSTD_createCCtx());
  if (!cctx) return *error = "zstd: out of memory", false;
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  std::vector<char> ibuf(1 << 20), obuf(ZSTD_CStreamOutSize());
  for (;;) {
    const ssize_t r = ::read(in, ibuf.data(), ibuf.size());
    if (r < 0) {
      if (errno == EINTR) continue;
      return *error = sysError("cannot read", src), false;
    }
    const bool last = r == 0;
    ZSTD_inBuffer ib{ibuf.data(), static_cast<size_t>(r), 0};
    const ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
    bool done = false;
    while (!done) {
      ZSTD_outBuffer ob{obuf.data(), obuf.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx.get(), &ob, &ib, mode);
      if (ZSTD_isError(left))
        return *error = std::string("zstd: ") + ZSTD_getErrorName(left), false;
      if (!writeAll(out, obuf.data(), ob.pos)) return *error = sysError("cannot write", tmp), false;
      done = last ? left == 0 : ib.pos == ib.size;
    }
    if (last) return true;
  }
}

}  // namespace

bool compressSegment(const std::string& src, const std::string& dst, int level,
                     std::string* error) {
  const std::string tmp = dst + ".tmp";
  bool ok = false;
  {
    Fd in{::open(src.c_str(), O_RDONLY | O_CLOEXEC)};
    if (in.fd < 0) return *error = sysError("cannot open", src), false;
    Fd out{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (out.fd < 0) return *error = sysError("cannot create", tmp), false;
    ok = compressInto(in.fd, out.fd, level, src, tmp, error);
    // The plain segment is deleted next, so the compressed one must be on disk first.
    if (ok && ::fsync(out.fd) != 0) ok = (*error = sysError("cannot sync", tmp), false);
  }
  if (ok && ::rename(tmp.c_str(), dst.c_str()) != 0)
    ok = (*error = sysError("cannot rename", tmp), false);
  if (!ok) {
    ::unlink(tmp.c_str());
    return false;
  }
  if (::unlink(src.c_str()) != 0) return *error = sysError("cannot delete", src), false;
  return true;
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

void SegmentCompressor::drain() {
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

std::string SegmentCompressor::lastError() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

void SegmentCompressor::run() {
  // Compression competes with the profiled program for CPU; let the program win (Linux: per-thread
  // nice).
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued is done
    const std::string segment = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::string error;
    const bool ok = compressSegment(segment, segment + ".zst", level_, &error);
    lock.lock();
    if (ok) {
      completed_.fetch_add(1);
    } else {
      errors_.fetch_add(1);
      last_error_ = error;
    }
  }
}

}  // namespace gpufl::log
