// kernel_block lines: every field comes back exactly (also at the limits of each type), a damaged
// block is reported with its line and how many kernel events it held, and a writer with
// kernel_blocks on gives the reader the same events as one writing lines.
#include "log/kernel_block.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <limits>
#include <random>

#include "log/decode_test_util.hpp"
#include "log/log_writer.hpp"
#include "log/reader.hpp"
#include "log/writer_test_util.hpp"

namespace gpufl::log {
namespace {

using namespace testing;

KernelEvent event(int64_t start, int64_t end, uint64_t corr, uint32_t k) {
  KernelEvent e;
  e.sid = "abcd1234";
  e.start_ns = start;
  e.end_ns = end;
  e.correlation_id = corr;
  e.def_id = k;
  return e;
}

void expectSame(const std::vector<KernelEvent>& want, const std::vector<KernelEvent>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(got[i].start_ns, want[i].start_ns);
    EXPECT_EQ(got[i].end_ns, want[i].end_ns);
    EXPECT_EQ(got[i].correlation_id, want[i].correlation_id);
    EXPECT_EQ(got[i].def_id, want[i].def_id);
    EXPECT_EQ(got[i].stream, want[i].stream);
    EXPECT_EQ(got[i].scope_path, want[i].scope_path);
    EXPECT_EQ(got[i].stack_id, want[i].stack_id);
    EXPECT_EQ(got[i].graph_id, want[i].graph_id);
    EXPECT_EQ(got[i].instrumented, want[i].instrumented);
  }
}

// The block line of `events`, checked to be one line of valid JSON.
std::string blockLine(const std::vector<KernelEvent>& events) {
  KernelBlockBuilder b("abcd1234");
  for (const KernelEvent& e : events) b.add(e);
  std::string out;
  b.appendLine(out, 3);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(out.find('\n'), out.size() - 1);
  simdjson::dom::parser parser;
  EXPECT_EQ(parser.parse(out).error(), simdjson::SUCCESS) << out.substr(0, 200);
  return out;
}

std::string dataOf(const std::string& line) {
  const size_t at = line.find("\"data\":\"") + 8;
  return line.substr(at, line.rfind('"') - at);
}

TEST(KernelBlock, EveryFieldComesBackAtTheLimitsOfItsType) {
  constexpr int64_t lo = std::numeric_limits<int64_t>::min(),
                    hi = std::numeric_limits<int64_t>::max();
  std::vector<KernelEvent> events = {
      event(1000, 1832, 7, 1),
      event(hi, lo, 0, std::numeric_limits<uint32_t>::max()),  // every difference wraps
      event(lo, hi, std::numeric_limits<uint64_t>::max(), 2),
      event(-5, -17, 3, 3),  // negative times, an end before the start
      event(0, 0, 3, 4),
  };
  events[2].stream = std::numeric_limits<uint32_t>::max();
  events[3].scope_path = 12345;
  events[3].stack_id = 99;
  events[3].graph_id = 7;
  events[4].instrumented = true;
  const std::string line = blockLine(events);
  EXPECT_EQ(
      line.rfind(R"({"type":"kernel_block","sid":"abcd1234","n":5,"enc":"planes1","data":")", 0),
      0u);
  EXPECT_EQ(recordsInLine(line), 5u);
  std::vector<KernelEvent> got;
  ASSERT_EQ(decodeKernelBlock(dataOf(line), 5, got), "");
  expectSame(events, got);
}

TEST(KernelBlock, RandomBlocksRoundTrip) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20; ++round) {
    const size_t n = 1 + rng() % KernelBlockBuilder::kMaxEvents;
    std::vector<KernelEvent> events;
    uint64_t t = rng() >> 2;  // unsigned: wild steps wrap (as the format allows), not overflow
    uint64_t corr = rng();
    for (size_t i = 0; i < n; ++i) {
      // Mostly the shape of real traces (32 ns ticks, +-1 ns), sometimes anything.
      const bool wild = rng() % 50 == 0;
      t += wild ? rng() : 32 * (rng() % 5000) - 1;
      const int64_t dur =
          wild ? static_cast<int64_t>(rng()) : static_cast<int64_t>(32 * (rng() % 300));
      corr += wild ? rng() : 1 + rng() % 3;
      KernelEvent e =
          event(static_cast<int64_t>(t), static_cast<int64_t>(t + static_cast<uint64_t>(dur)), corr,
                1 + static_cast<uint32_t>(rng() % (wild ? 1u << 31 : 40)));
      e.stream = static_cast<uint32_t>(rng() % 4);
      e.scope_path = static_cast<uint32_t>(rng() % (wild ? 1u << 31 : 3));
      e.instrumented = rng() % 7 == 0;
      events.push_back(e);
    }
    const std::string line = blockLine(events);
    std::vector<KernelEvent> got;
    ASSERT_EQ(decodeKernelBlock(dataOf(line), n, got), "") << "round " << round;
    expectSame(events, got);
  }
}

TEST(KernelBlock, DamagedDataIsRefusedWithTheReason) {
  const std::string data = dataOf(blockLine({event(10, 20, 1, 1), event(40, 70, 2, 2)}));
  std::vector<KernelEvent> got;
  EXPECT_EQ(decodeKernelBlock(data, 3, got), "payload holds 2 events");
  EXPECT_EQ(decodeKernelBlock(data, 0, got), "n 0 is outside 1..16384");
  EXPECT_EQ(decodeKernelBlock(data.substr(0, data.size() - 4), 2, got).substr(0, 5), "zstd:");
  EXPECT_EQ(decodeKernelBlock(data.substr(1), 2, got), "not base64");
  EXPECT_EQ(decodeKernelBlock("AAAA" + data.substr(4), 2, got), "not a zstd frame");
  std::string flipped = data;
  flipped[data.size() / 2] = flipped[data.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_NE(decodeKernelBlock(flipped, 2, got), "");  // zstd's checksum-free frame: any reason
  EXPECT_EQ(decodeKernelBlock("=AAA", 2, got), "not base64");
  EXPECT_EQ(decodeKernelBlock("AA=A", 2, got), "not base64");
}

TEST(KernelBlock, TheReaderDeliversABlockAndNamesTheLineOfABadOne) {
  const std::string good = blockLine({event(10, 20, 1, 1), event(40, 70, 2, 2)});
  std::string bad = good;
  bad.replace(bad.find("\"n\":2"), 5, "\"n\":3");
  std::string other_enc = good;
  other_enc.replace(other_enc.find("planes1"), 7, "planes9");
  const auto d = decode(good + bad + other_enc + kernelAbs(3, 500, 9, 5));
  ASSERT_EQ(d->v.kernels.size(), 3u);
  EXPECT_EQ(d->v.kernels[1].start_ns, 40);
  EXPECT_EQ(d->v.kernels[1].end_ns, 70);
  EXPECT_EQ(d->v.kernels[1].sid, "abcd1234");
  EXPECT_EQ(d->v.kernels[2].start_ns, 500);  // the lines after a bad block are read
  EXPECT_EQ(
      d->all(),
      "t.device.log:2: kernel_block: field 'data': payload holds 2 events; its 3 kernel events "
      "are lost\n"
      "t.device.log:3: kernel_block: field 'enc' is not planes1\n");
  // Another session's block is not delivered.
  EXPECT_TRUE(decode(good, "ffff0000")->v.kernels.empty());
}

using KernelBlockWriterTest = WriterDirTest;

// The same events through a writer with and without blocks: the reader sees the same kernels (in
// the same order per session), and a session's blocks come before its session_end.
TEST_F(KernelBlockWriterTest, BlocksReadBackAsTheLinesWould) {
  std::vector<KernelEvent> events;
  std::mt19937_64 rng(7);
  int64_t t = 1'000'000;
  for (uint64_t i = 0; i < 40'000; ++i) {
    t += 32 * static_cast<int64_t>(rng() % 200) + static_cast<int64_t>(rng() % 3) - 1;
    KernelEvent e = event(t, t + 32 * static_cast<int64_t>(rng() % 100), 10 + 2 * i,
                          1 + static_cast<uint32_t>(rng() % 30));
    e.sid = i % 3 == 0 ? "bbbb0002" : "aaaa0001";  // two sessions sharing the writer
    events.push_back(e);
  }
  auto written = [&](bool blocks, const std::string& prefix) {
    auto w = openAt(prefix, 0, blocks);
    w->onSessionStart(SessionStart{.sid = "aaaa0001", .session_id = "aaaa0001-1"});
    w->onSessionStart(SessionStart{.sid = "bbbb0002", .session_id = "bbbb0002-1"});
    for (const char* sid : {"aaaa0001", "bbbb0002"})
      for (uint32_t k = 1; k <= 30; ++k)
        w->onKernelDef(KernelDef{.sid = sid, .id = k, .name = "k" + std::to_string(k)});
    for (size_t i = 0; i < events.size(); ++i) {
      w->onKernel(events[i]);
      if (i == 25'000) w->flush();  // a partial block goes out at a flush
    }
    w->onSessionEnd(SessionEnd{.sid = "aaaa0001", .kernels = 0});
    w->close();
    // Session records go to 3 files.
    EXPECT_EQ(w->stats().records, 2 * 3 + 60 + events.size() + 3);
    EXPECT_EQ(w->stats().records_dropped, 0u);
  };
  written(false, prefix_ + "_lines");
  written(true, prefix_ + "_blocks");
  const std::string blocks_text = readFile(prefix_ + "_blocks.device.log");
  // The session_end of aaaa0001 follows all of its blocks.
  EXPECT_LT(blocks_text.rfind(R"("type":"kernel_block","sid":"aaaa0001")"),
            blocks_text.find(R"("type":"session_end")"));
  for (const char* sid : {"aaaa0001", "bbbb0002"}) {
    RecordingVisitor lines, blocks;
    ReadOptions ro;
    ro.session = sid;
    const ReadResult a = readPrefix(prefix_ + "_lines", ro, lines);
    const ReadResult b = readPrefix(prefix_ + "_blocks", ro, blocks);
    EXPECT_EQ(allWarnings(a.warnings), allWarnings(b.warnings));
    EXPECT_EQ(blocks.kernels.size(), sid[0] == 'a' ? 26'666u : 13'334u);
    expectSame(lines.kernels, blocks.kernels);
  }
  EXPECT_LT(blocks_text.size() * 4, readFile(prefix_ + "_lines.device.log").size());
}

// A block lost to a failed write counts each of its kernel events as dropped.
TEST_F(KernelBlockWriterTest, ALostBlockCountsEveryEventInIt) {
  auto w = open(0, true);
  ASSERT_TRUE(w);
  w->onSessionStart(SessionStart{.sid = "dddddddd", .session_id = "dddddddd-1"});
  w->flush();
  const size_t before = readFile(prefix_ + ".device.log").size();
  {
    FileSizeLimit limit(before + 10);  // the block line is cut after 10 bytes
    for (int i = 0; i < 500; ++i) w->onKernel(event(100 * i, 100 * i + 50, 1 + i, 1));
    w->flush();
  }
  const LogWriterStats s = w->stats();
  EXPECT_GT(s.write_errors, 0u);
  EXPECT_EQ(s.records_dropped, 500u);
}

}  // namespace
}  // namespace gpufl::log
