// Writer -> damage -> reader: one damaged line of a kernel delta chain costs that line's kernel
// events only, wherever it falls (between resync points, on one, after the last one of a file,
// before a rotation).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "log/log_writer.hpp"
#include "log/reader.hpp"
#include "log/reader_test_util.hpp"

namespace gpufl::log {
namespace {

using testing::allWarnings;
using testing::RecordingVisitor;
using testing::TempDir;

const std::string kSid = "cafe0001";

// Irregular starts (concurrent kernels come out of order) and correlation ids with gaps.
KernelEvent kernel(uint64_t i) {
  KernelEvent e;
  e.sid = kSid;
  e.def_id = 1 + static_cast<uint32_t>(i % 3);
  e.stream = 7;
  e.start_ns = 1'000'000 + static_cast<int64_t>(i) * 1000 + static_cast<int64_t>(i % 7) * 130 -
               (i % 5 == 0 ? 900 : 0);
  e.end_ns = e.start_ns + 200 + static_cast<int64_t>(i % 11);
  e.correlation_id = 10 + i * 2 + (i % 13 == 0 ? 1 : 0);
  return e;
}

struct Written {
  TempDir dir;
  std::string prefix = dir.path("run");
  uint64_t n = 0;
};

void write(Written& w, uint64_t n, uint64_t rotate_bytes) {
  LogWriterOptions o;
  o.prefix = w.prefix;
  o.rotate_bytes = rotate_bytes;
  o.compress_rotated = false;
  std::string error;
  auto writer = LogWriter::open(o, &error);
  ASSERT_TRUE(writer) << error;
  SessionStart start;
  start.sid = kSid;
  start.session_id = kSid + "-0000-0000-0000-000000000000";
  start.start_unix_ns = 1;
  writer->onSessionStart(start);
  for (uint64_t i = 0; i < n; ++i) writer->onKernel(kernel(i));
  SessionEnd end;
  end.sid = kSid;
  end.kernels = n;
  writer->onSessionEnd(end);
  writer->close();
  w.n = n;
}

std::vector<std::string> lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Replaces the `index`-th kernel_event line of `path` (0-based) with garbage; returns its text.
std::string damageKernelLine(const std::string& path, size_t index) {
  std::vector<std::string> all = lines(path);
  std::string old;
  size_t seen = 0;
  for (auto& l : all) {
    if (l.find("\"kernel_event\"") == std::string::npos || seen++ != index) continue;
    old = l;
    l = "{\"type\":\"kernel_event\",\"sid\":\"cafe0001\",\"dur_ns\":2#garbage";
  }
  std::ofstream out(path, std::ios::trunc);
  for (const auto& l : all) out << l << "\n";
  return old;
}

// Reads the prefix back; every kernel but those of `lost` (write order) must come back exact.
void expectAllBut(const Written& w, std::vector<uint64_t> lost) {
  RecordingVisitor v;
  const ReadResult r = readPrefix(w.prefix, {}, v);
  std::vector<KernelEvent> got = v.kernels;
  std::sort(got.begin(), got.end(),
            [](auto& a, auto& b) { return a.correlation_id < b.correlation_id; });
  std::vector<KernelEvent> want;
  for (uint64_t i = 0; i < w.n; ++i)
    if (std::find(lost.begin(), lost.end(), i) == lost.end()) want.push_back(kernel(i));
  ASSERT_EQ(got.size(), want.size()) << allWarnings(r.warnings);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].correlation_id, want[i].correlation_id) << i;
    ASSERT_EQ(got[i].start_ns, want[i].start_ns) << i;
    ASSERT_EQ(got[i].end_ns, want[i].end_ns) << i;
    ASSERT_EQ(got[i].def_id, want[i].def_id) << i;
  }
}

TEST(KernelChain, LineBetweenResyncPointsCostsOnlyItself) {
  Written w;
  write(w, 3000, 0);
  damageKernelLine(w.prefix + ".device.log", 1500);
  expectAllBut(w, {1500});
}

TEST(KernelChain, LostResyncPointCostsOnlyItself) {
  Written w;
  write(w, 3000, 0);
  EXPECT_NE(damageKernelLine(w.prefix + ".device.log", 1024).find("\"start_ns\""),
            std::string::npos);
  expectAllBut(w, {1024});
}

TEST(KernelChain, LineAfterTheLastResyncPointCostsOnlyItself) {
  Written w;
  write(w, 3000, 0);
  damageKernelLine(w.prefix + ".device.log", 2990);
  expectAllBut(w, {2990});
}

TEST(KernelChain, LineAtTheEndOfARotatedSegmentCostsOnlyItself) {
  Written w;
  write(w, 3000, 32 << 10);
  const std::string first = w.prefix + ".device.000001.log";
  size_t kernels = 0;
  for (const auto& l : lines(first)) kernels += l.find("\"kernel_event\"") != std::string::npos;
  ASSERT_GT(kernels, 10u);
  ASSERT_LT(kernels, 1024u);  // the segment has no resync point after its first kernel
  damageKernelLine(first, kernels - 3);
  expectAllBut(w, {kernels - 3});
}

// Two damaged lines with no resync point between them: the kernels between them cannot be placed.
TEST(KernelChain, KernelsBetweenTwoLostLinesAreSkippedWithAWarning) {
  Written w;
  write(w, 3000, 0);
  damageKernelLine(w.prefix + ".device.log", 1500);
  damageKernelLine(w.prefix + ".device.log", 1510);
  std::vector<uint64_t> lost;
  for (uint64_t i = 1500; i <= 1510; ++i) lost.push_back(i);
  expectAllBut(w, lost);
}

}  // namespace
}  // namespace gpufl::log
