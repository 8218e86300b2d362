// Helpers shared by the writer's tests: a temporary prefix, file contents, sample events, and a
// file-size limit that makes writes fail the way a full disk does.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zstd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "log/log_writer.hpp"
#include "log/reader_test_util.hpp"  // writeFile

namespace gpufl::log::testing {

namespace fs = std::filesystem;

// A fresh directory per test, removed after it; prefix_ = <dir>/run.
class WriterDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpufl_writer_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    prefix_ = dir_ + "/run";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A writer on prefix_ (rotate_bytes 0: never rotate); a failed open fails the test.
  std::unique_ptr<LogWriter> open(uint64_t rotate_bytes = 0, bool kernel_blocks = false) {
    return openAt(prefix_, rotate_bytes, kernel_blocks);
  }
  std::unique_ptr<LogWriter> openAt(const std::string& prefix, uint64_t rotate_bytes,
                                    bool kernel_blocks = false) {
    LogWriterOptions o;
    o.prefix = prefix;
    o.rotate_bytes = rotate_bytes;
    o.kernel_blocks = kernel_blocks;
    std::string error;
    auto w = LogWriter::open(o, &error);
    EXPECT_TRUE(w) << error;
    return w;
  }

  std::string dir_, prefix_;
};

// While alive, writes past `bytes` in any file fail with EFBIG (RLIMIT_FSIZE, SIGXFSZ ignored): a
// full disk that needs no privileges. Keep the scope narrow: it limits every file the process
// writes.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit lim = old_;
    lim.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string decompress(const std::string& path) {
  const std::string in = readFile(path);
  std::string out;
  ZSTD_DStream* d = ZSTD_createDStream();
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  std::vector<char> buf(1 << 16);
  size_t ret = 1;
  while (ib.pos < ib.size) {
    ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
    ret = ZSTD_decompressStream(d, &ob, &ib);
    EXPECT_FALSE(ZSTD_isError(ret)) << ZSTD_getErrorName(ret);
    if (ZSTD_isError(ret)) break;
    out.append(buf.data(), ob.pos);
  }
  EXPECT_EQ(ret, 0u) << "incomplete frame in " << path;
  ZSTD_freeDStream(d);
  return out;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

// Names of the files in `dir`, sorted.
inline std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline SessionStart session(const std::string& sid) {
  SessionStart s;
  s.sid = sid;
  s.session_id = sid + "-0000-4000-8000-000000000000";
  s.app = "test";
  s.devices.resize(1);
  return s;
}

inline KernelEvent kernel(const std::string& sid, uint64_t i) {
  KernelEvent k;
  k.sid = sid;
  k.def_id = 1 + i % 5;
  k.stream = 7;
  k.correlation_id = 10 + 2 * i;
  k.start_ns = 1'000'000 + int64_t(i) * 3000 - (i % 7 == 3 ? 5000 : 0);
  k.end_ns = k.start_ns + 1000 + int64_t(i % 5) * 32;
  return k;
}

}  // namespace gpufl::log::testing
