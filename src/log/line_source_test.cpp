#include "log/line_source.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "log/reader_test_util.hpp"

namespace gpufl::log {
namespace {

using Format = LineSource::Format;

struct Collected {
  std::vector<std::string> lines;  // "<text>" or "!too long"; "$" suffix marks an unterminated line
  std::string error;
};

Collected collect(LineSource& source) {
  Collected out;
  Line line;
  uint64_t expected_number = 1;
  while (source.next(line)) {
    EXPECT_EQ(line.number, expected_number++);
    std::string text = line.status == Line::Status::TooLong ? "!too long" : std::string(line.text);
    if (!line.terminated) text += "$";
    out.lines.push_back(text);
  }
  out.error = source.error();
  return out;
}

Collected collect(const std::string& data, Format format, size_t max_line = kDefaultMaxLineBytes,
                  LineSource::Decompress how = LineSource::Decompress::Auto) {
  auto source = LineSource::fromMemory(data, format, max_line, how);
  return collect(*source);
}

// zstd is decompressed inline or on a thread of its own (LineSource::Decompress): every zstd test
// runs both ways and must see the same lines and errors.
constexpr LineSource::Decompress kBothWays[] = {LineSource::Decompress::Inline,
                                                LineSource::Decompress::Thread};
Collected collectZstd(const std::string& data, LineSource::Decompress how) {
  return collect(data, Format::Zstd, kDefaultMaxLineBytes, how);
}

TEST(LineSource, SplitsLinesAndMarksUnterminatedLast) {
  const auto got = collect("a\nbb\n\nccc", Format::Plain);
  EXPECT_EQ(got.lines, (std::vector<std::string>{"a", "bb", "", "ccc$"}));
  EXPECT_EQ(got.error, "");
  EXPECT_TRUE(collect("", Format::Plain).lines.empty());
  EXPECT_EQ(collect("x\n", Format::Plain).lines, std::vector<std::string>{"x"});
}

TEST(LineSource, LinesLongerThanTheReadChunkGrowTheBuffer) {
  const std::string big(3u << 20, 'x');
  const auto got = collect("s\n" + big + "\nt\n", Format::Plain);
  ASSERT_EQ(got.lines.size(), 3u);
  EXPECT_EQ(got.lines[1], big);
  EXPECT_EQ(got.lines[2], "t");
}

TEST(LineSource, TooLongLinesAreSkippedAndCounted) {
  const std::string data = "short\n" + std::string(20, 'x') + "\nnext\n" + std::string(30, 'y');
  const auto got = collect(data, Format::Plain, 10);
  EXPECT_EQ(got.lines, (std::vector<std::string>{"short", "!too long", "next", "!too long$"}));
}

TEST(LineSource, TooLongLineSpanningManyReadsIsSkippedWithBoundedMemory) {
  const std::string data = std::string(5u << 20, 'z') + "\nafter\n";
  const auto got = collect(data, Format::Plain, 1000);
  EXPECT_EQ(got.lines, (std::vector<std::string>{"!too long", "after"}));
}

TEST(LineSource, LinesArePaddedForSimdjson) {
  // Every byte up to kLinePadding past the line must be readable (ASan checks the reads).
  std::string data;
  for (int i = 0; i < 1000; ++i) data += std::string(i % 97, 'a') + "\n";
  auto source = LineSource::fromMemory(data, Format::Plain, kDefaultMaxLineBytes);
  Line line;
  volatile char sink = 0;
  while (source->next(line))
    for (size_t i = 0; i < kLinePadding; ++i) sink = sink + line.text.data()[line.text.size() + i];
}

std::string numberedLines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += R"({"type":"x","i":)" + std::to_string(i) + "}\n";
  return text;
}

TEST(LineSource, ZstdRoundTripAcrossChunks) {
  for (const auto how : kBothWays) {
    SCOPED_TRACE(how == LineSource::Decompress::Thread ? "thread" : "inline");
    const std::string text = numberedLines(100000);  // about 2 MiB of text: several output chunks
    const auto got = collectZstd(testing::zstdCompress(text), how);
    ASSERT_EQ(got.lines.size(), 100000u);
    EXPECT_EQ(got.lines[99999], R"({"type":"x","i":99999})");
    EXPECT_EQ(got.error, "");
  }
}

// The thread stops when the source goes before the end (the reader stopped early), and both ways
// count the same raw and decoded bytes.
TEST(LineSource, ZstdThreadStopsEarlyAndCountsLikeInline) {
  const std::string zst = testing::zstdCompress(numberedLines(300000));
  {
    auto source = LineSource::fromMemory(zst, Format::Zstd, kDefaultMaxLineBytes,
                                         LineSource::Decompress::Thread);
    Line line;
    ASSERT_TRUE(source->next(line));
    EXPECT_EQ(line.text, R"({"type":"x","i":0})");
  }  // destroyed while the thread may be waiting for a free block
  uint64_t raw[2], decoded[2];
  for (size_t i = 0; i < 2; ++i) {
    auto source = LineSource::fromMemory(zst, Format::Zstd, kDefaultMaxLineBytes, kBothWays[i]);
    Line line;
    while (source->next(line)) {
    }
    raw[i] = source->rawBytes();
    decoded[i] = source->decodedBytes();
  }
  EXPECT_EQ(raw[0], zst.size());
  EXPECT_EQ(raw[1], raw[0]);
  EXPECT_EQ(decoded[1], decoded[0]);
}

TEST(LineSource, ZstdConcatenatedFramesReadAsOneStream) {
  for (const auto how : kBothWays) {
    SCOPED_TRACE(how == LineSource::Decompress::Thread ? "thread" : "inline");
    const auto got = collectZstd(testing::zstdCompress("a\nb") + testing::zstdCompress("c\n"), how);
    EXPECT_EQ(got.lines, (std::vector<std::string>{"a", "bc"}));
  }
}

TEST(LineSource, TruncatedZstdDeliversCompleteLinesOnly) {
  for (const auto how : kBothWays) {
    SCOPED_TRACE(how == LineSource::Decompress::Thread ? "thread" : "inline");
    const std::string text = numberedLines(200000);
    const std::string zst = testing::zstdCompress(text);
    const auto got = collectZstd(zst.substr(0, zst.size() / 2), how);
    EXPECT_NE(got.error.find("truncated zstd data"), std::string::npos) << got.error;
    ASSERT_GT(got.lines.size(), 1000u);
    ASSERT_LT(got.lines.size(), 200000u);
    for (size_t i = 0; i < got.lines.size(); ++i)
      ASSERT_EQ(got.lines[i], R"({"type":"x","i":)" + std::to_string(i) + "}");
  }
}

TEST(LineSource, CorruptZstdKeepsWhatCameBefore) {
  for (const auto how : kBothWays) {
    SCOPED_TRACE(how == LineSource::Decompress::Thread ? "thread" : "inline");
    const std::string good = testing::zstdCompress("one\ntwo\nthr");
    const auto got = collectZstd(good + "this is not zstd", how);
    EXPECT_EQ(got.lines, (std::vector<std::string>{"one", "two"}));
    EXPECT_NE(got.error.find("corrupt zstd data after 11 decoded bytes"), std::string::npos)
        << got.error;
  }
}

TEST(LineSource, PlainTextNamedZstIsCorrupt) {
  for (const auto how : kBothWays) {
    SCOPED_TRACE(how == LineSource::Decompress::Thread ? "thread" : "inline");
    const auto got = collectZstd("{\"type\":\"note\"}\n", how);
    EXPECT_TRUE(got.lines.empty());
    EXPECT_NE(got.error.find("corrupt zstd data after 0 decoded bytes"), std::string::npos)
        << got.error;
  }
}

TEST(LineSource, FilesOpenByExtension) {
  testing::TempDir dir;
  testing::writeFile(dir.path("a.log.zst"), testing::zstdCompress("z1\nz2\n"));
  testing::writeFile(dir.path("a.log"), "p1\n");
  std::string error;
  auto zst = LineSource::openFile(dir.path("a.log.zst"), kDefaultMaxLineBytes, &error);
  ASSERT_TRUE(zst);
  EXPECT_EQ(collect(*zst).lines, (std::vector<std::string>{"z1", "z2"}));
  auto plain = LineSource::openFile(dir.path("a.log"), kDefaultMaxLineBytes, &error);
  ASSERT_TRUE(plain);
  EXPECT_EQ(collect(*plain).lines, std::vector<std::string>{"p1"});
  EXPECT_FALSE(LineSource::openFile(dir.path("missing.log"), kDefaultMaxLineBytes, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
}

// Only regular files are read: a FIFO would block open() and read() forever, a device such as
// /dev/zero never ends, and a directory is not a log.
TEST(LineSource, OnlyRegularFilesOpen) {
  testing::TempDir dir;
  ASSERT_EQ(::mkfifo(dir.path("fifo.log").c_str(), 0644), 0);
  std::filesystem::create_symlink("/dev/zero", dir.path("zero.log"));
  std::filesystem::create_directory(dir.path("dir.log"));
  for (const auto& [name, why] :
       std::vector<std::pair<std::string, std::string>>{{"fifo.log", "a FIFO"},
                                                        {"zero.log", "a character device"},
                                                        {"dir.log", "a directory"}}) {
    std::string error;
    EXPECT_FALSE(LineSource::openFile(dir.path(name), kDefaultMaxLineBytes, &error)) << name;
    EXPECT_EQ(error, "not a regular file: " + why) << name;
  }
}

}  // namespace
}  // namespace gpufl::log
