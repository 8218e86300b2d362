#include "log/log_writer.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "log/writer_test_util.hpp"

namespace gpufl::log {
namespace {

namespace fs = std::filesystem;

using namespace testing;

using LogWriterTest = WriterDirTest;

// Decodes the kernel_event lines of one file (as a reader must: deltas never cross files) to
// (start, corr).
std::vector<std::pair<int64_t, uint64_t>> decodeKernels(const std::string& text,
                                                        bool* first_absolute) {
  std::vector<std::pair<int64_t, uint64_t>> out;
  simdjson::dom::parser p;
  int64_t start = 0;
  int64_t corr = 0;
  bool seen = false;
  *first_absolute = true;
  for (const std::string& l : lines(text)) {
    simdjson::dom::element e = p.parse(l);
    if (std::string_view(e["type"]) != "kernel_event") continue;
    int64_t v = 0;
    if (e["start_ns"].get(v) == simdjson::SUCCESS) {
      start = v;
      corr = int64_t(e["corr"]);
    } else {
      if (!seen) *first_absolute = false;
      start += int64_t(e["dt_ns"]);
      corr += int64_t(e["dcorr"]);
    }
    seen = true;
    out.emplace_back(start, uint64_t(corr));
  }
  return out;
}

TEST_F(LogWriterTest, RoutesRecordsToTheirChannels) {
  auto w = open();
  w->onSessionStart(session("aaaaaaaa"));
  w->onDevice(DeviceEvent{.sid = "aaaaaaaa", .device = {}});
  w->onKernelDef(KernelDef{.sid = "aaaaaaaa", .id = 1, .name = "k", .demangled = "k"});
  w->onKernel(kernel("aaaaaaaa", 0));
  w->onScopePath(ScopePath{"aaaaaaaa", 1, 0, "step", 0});
  w->onGpuSample(GpuSample{.sid = "aaaaaaaa", .ts_ns = 5});
  w->onSessionEnd(SessionEnd{.sid = "aaaaaaaa", .end_ns = 9});
  w->close();
  const auto dev = lines(readFile(prefix_ + ".device.log"));
  const auto scope = lines(readFile(prefix_ + ".scope.log"));
  const auto sys = lines(readFile(prefix_ + ".system.log"));
  ASSERT_EQ(dev.size(), 5u);
  EXPECT_NE(dev[1].find("{\"type\":\"device\""), std::string::npos);
  ASSERT_EQ(scope.size(), 3u);
  ASSERT_EQ(sys.size(), 3u);
  EXPECT_NE(dev[0].find("\"devices\":[{"), std::string::npos);
  EXPECT_EQ(scope[0].find("devices"), std::string::npos);
  EXPECT_NE(scope[1].find("scope_path"), std::string::npos);
  EXPECT_NE(sys[1].find("system_sample"), std::string::npos);
  EXPECT_NE(sys[2].find("session_end"), std::string::npos);
  const LogWriterStats s = w->stats();
  EXPECT_EQ(s.records, 11u);
  EXPECT_EQ(s.bytes_written, fs::file_size(prefix_ + ".device.log") +
                                 fs::file_size(prefix_ + ".scope.log") +
                                 fs::file_size(prefix_ + ".system.log"));
  EXPECT_EQ(s.write_errors, 0u);
}

// `gpufl monitor --prefix P` writes P.system.log alone: no other channel's file is created, and
// every record (its notes too) and the session's start and end are in that one.
TEST_F(LogWriterTest, AOneFileWriterCreatesOnlyThatChannelsFile) {
  LogWriterOptions o;
  o.prefix = prefix_;
  o.one_file = Channel::System;
  std::string error;
  auto w = LogWriter::open(o, &error);
  ASSERT_TRUE(w) << error;
  w->onSessionStart(session("aaaaaaaa"));
  w->onNote(Note{.sid = "aaaaaaaa", .feature = "nvml", .status = "on"});
  w->onGpuSample(GpuSample{.sid = "aaaaaaaa", .ts_ns = 5});
  w->onSessionEnd(SessionEnd{.sid = "aaaaaaaa", .end_ns = 9});
  w->close();
  EXPECT_FALSE(fs::exists(prefix_ + ".device.log"));
  EXPECT_FALSE(fs::exists(prefix_ + ".scope.log"));
  const auto sys = lines(readFile(prefix_ + ".system.log"));
  ASSERT_EQ(sys.size(), 4u);
  EXPECT_NE(sys[0].find("session_start"), std::string::npos);
  EXPECT_NE(sys[1].find("\"note\""), std::string::npos);
  EXPECT_NE(sys[2].find("system_sample"), std::string::npos);
  EXPECT_NE(sys[3].find("session_end"), std::string::npos);
  EXPECT_EQ(w->stats().records, 4u);
  EXPECT_EQ(w->stats().write_errors, 0u);
}

TEST_F(LogWriterTest, AppendKeepsEarlierSessions) {
  for (const char* sid : {"11111111", "22222222"}) {
    auto w = open();
    w->onSessionStart(session(sid));
    w->onKernel(kernel(sid, 0));
    w->close();
  }
  const std::string dev = readFile(prefix_ + ".device.log");
  EXPECT_EQ(lines(dev).size(), 4u);
  EXPECT_LT(dev.find("11111111"), dev.find("22222222"));
}

TEST_F(LogWriterTest, PartialLastLineOfAnEarlierRunIsTerminated) {
  std::ofstream(prefix_ + ".device.log") << "{\"type\":\"kernel_ev";  // a run killed mid-write
  auto w = open();
  w->onKernel(kernel("ffffffff", 0));
  w->close();
  const auto l = lines(readFile(prefix_ + ".device.log"));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], "{\"type\":\"kernel_ev");
  EXPECT_EQ(l[1].rfind("{\"type\":\"kernel_event\"", 0), 0u) << l[1];
}

TEST_F(LogWriterTest, RotationCompressesSegmentsThatDecodeAlone) {
  const uint64_t kRotate = 16 << 10;
  // An earlier run left segment 41: numbering continues after it.
  std::ofstream(prefix_ + ".device.000041.log.zst") << "";
  auto w = open(kRotate);
  w->onSessionStart(session("cccccccc"));
  const uint64_t n = 5000;
  for (uint64_t i = 0; i < n; ++i) w->onKernel(kernel("cccccccc", i));
  w->close();
  const LogWriterStats s = w->stats();
  EXPECT_GT(s.segments_rotated, 10u);
  EXPECT_EQ(s.segments_compressed, s.segments_rotated);
  EXPECT_EQ(s.compress_errors, 0u);

  std::vector<std::pair<int64_t, uint64_t>> all;
  uint64_t segments = 0;
  for (uint64_t num = 42;; ++num) {
    char name[64];
    std::snprintf(name, sizeof name, ".device.%06llu.log", static_cast<unsigned long long>(num));
    const std::string plain = prefix_ + name;
    if (!fs::exists(plain + ".zst")) break;
    EXPECT_FALSE(fs::exists(plain)) << "plain segment not deleted: " << plain;
    EXPECT_FALSE(fs::exists(plain + ".zst.tmp"));
    const std::string text = decompress(plain + ".zst");
    EXPECT_EQ(text.back(), '\n');
    EXPECT_GE(text.size(), kRotate);
    EXPECT_LT(text.size(), kRotate + 1024);  // rotated at the first line boundary past the limit
    bool first_absolute = false;
    const auto part = decodeKernels(text, &first_absolute);
    EXPECT_TRUE(first_absolute) << plain;
    all.insert(all.end(), part.begin(), part.end());
    ++segments;
  }
  EXPECT_EQ(segments, s.segments_rotated);
  bool first_absolute = false;
  const auto tail = decodeKernels(readFile(prefix_ + ".device.log"), &first_absolute);
  EXPECT_TRUE(first_absolute);
  all.insert(all.end(), tail.begin(), tail.end());
  ASSERT_EQ(all.size(), n);
  for (uint64_t i = 0; i < n; ++i) {
    const KernelEvent k = kernel("cccccccc", i);
    ASSERT_EQ(all[i].first, k.start_ns) << i;
    ASSERT_EQ(all[i].second, k.correlation_id) << i;
  }
}

TEST_F(LogWriterTest, UnwritablePathIsAnErrorNamingThePath) {
  LogWriterOptions o;
  o.prefix = dir_ + "/missing_dir/run";
  std::string error;
  EXPECT_EQ(LogWriter::open(o, &error), nullptr);
  EXPECT_NE(error.find(dir_ + "/missing_dir/run.device.log"), std::string::npos) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
}

// One session (two kernels, a scope end) through a stream writer; the lines it wrote.
std::vector<std::string> streamed(std::optional<Channel> only = std::nullopt) {
  std::FILE* f = std::tmpfile();
  EXPECT_NE(f, nullptr);
  if (f == nullptr) return {};
  {
    auto w = LogWriter::toStream(f, only);
    w->onSessionStart(session("eeeeeeee"));
    w->onKernel(kernel("eeeeeeee", 0));
    w->onKernel(kernel("eeeeeeee", 1));
    w->onScopeEnd(ScopeEnd{"eeeeeeee", 1});
    w->onSessionEnd(SessionEnd{.sid = "eeeeeeee", .end_ns = 9});
    w->flush();
  }
  std::rewind(f);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  return lines(text);
}

TEST_F(LogWriterTest, StreamGetsEveryRecordOnceWithAbsoluteKernels) {
  const auto l = streamed();
  ASSERT_EQ(l.size(), 5u);
  EXPECT_NE(l[0].find("\"devices\""), std::string::npos);
  EXPECT_NE(l[2].find("\"corr\":12,\"start_ns\":1003000,\"end_ns\":1004032}"), std::string::npos)
      << l[2];
}

// A stream limited to one channel: that channel's records plus the session start and end.
TEST_F(LogWriterTest, StreamOfOneChannel) {
  const auto l = streamed(Channel::Scope);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_NE(l[0].find("session_start"), std::string::npos);
  EXPECT_NE(l[1].find("scope_end"), std::string::npos);
  EXPECT_NE(l[2].find("session_end"), std::string::npos);
}

}  // namespace
}  // namespace gpufl::log
