#include "export/buffered_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace gpufl::exporter {
namespace {

TEST(BufferedFile, WritesEverythingAppended) {
  const std::string path = ::testing::TempDir() + "buffered_file_test.txt";
  {
    BufferedFile f(path);
    ASSERT_TRUE(f.ok()) << f.error();
    f.text() = "first,";
    f.flushWhenOver(4);  // written out
    EXPECT_TRUE(f.text().empty());
    f.text() += "second";
    f.flushWhenOver(1 << 20);  // kept
    EXPECT_EQ(f.text(), "second");
    std::string error;
    EXPECT_TRUE(f.finish(&error)) << error;
  }
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  EXPECT_EQ(all.str(), "first,second");
  std::remove(path.c_str());
}

TEST(BufferedFile, NamesTheFileThatCannotBeOpened) {
  BufferedFile f("/nonexistent-dir/out.json");
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(f.error().rfind("/nonexistent-dir/out.json: cannot write: ", 0), 0u) << f.error();
  std::string error;
  EXPECT_FALSE(f.finish(&error));
  EXPECT_EQ(error, f.error());
}

// A full disk: the write's failure is kept and reported at the end, with the file's name.
TEST(BufferedFile, AFailedWriteIsReportedAtTheEnd) {
  std::FILE* probe = std::fopen("/dev/full", "wb");
  if (!probe) GTEST_SKIP() << "no /dev/full here";
  std::fclose(probe);
  BufferedFile f("/dev/full");
  ASSERT_TRUE(f.ok());
  f.text() = std::string(1 << 16, 'x');
  f.flushWhenOver(1);
  std::string error;
  EXPECT_FALSE(f.finish(&error));
  EXPECT_NE(error.find("/dev/full: "), std::string::npos) << error;
}

}  // namespace
}  // namespace gpufl::exporter
