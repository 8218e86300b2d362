#include "export/buffered_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "export/export_test_util.hpp"

namespace gpufl::exporter {
namespace {

namespace fs = std::filesystem;
using testing::Dir;
using testing::textOf;

TEST(BufferedFile, WritesEverythingAppended) {
  Dir dir;
  const std::string path = dir / "out.txt";
  {
    BufferedFile f(path);
    ASSERT_TRUE(f.ok()) << f.error();
    f.text() = "first,";
    f.flushWhenOver(4);  // written out
    EXPECT_TRUE(f.text().empty());
    f.text() += "second";
    f.flushWhenOver(1 << 20);  // kept
    EXPECT_EQ(f.text(), "second");
    EXPECT_FALSE(fs::exists(path));  // not before it is whole
    std::string error;
    EXPECT_TRUE(f.finish(&error)) << error;
  }
  EXPECT_EQ(textOf(path), "first,second");
  EXPECT_EQ(dir.names().size(), 1u);  // no temporary left
}

TEST(BufferedFile, NamesTheFileThatCannotBeOpened) {
  BufferedFile f("/nonexistent-dir/out.json");
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(f.error().rfind("/nonexistent-dir/out.json: cannot write: ", 0), 0u) << f.error();
  std::string error;
  EXPECT_FALSE(f.finish(&error));
  EXPECT_EQ(error, f.error());
}

// A link planted at the output path is neither followed (its target stays as it was) nor replaced.
TEST(BufferedFile, ALinkAtTheOutputIsRefusedAndItsTargetKept) {
  Dir dir;
  const std::string victim = dir / "victim", link = dir / "out.json";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
  BufferedFile f(link);
  EXPECT_FALSE(f.ok());
  EXPECT_NE(f.error().find("out.json: a symbolic link; refusing to write through it"),
            std::string::npos)
      << f.error();
  f.text() = "overwritten";
  std::string error;
  EXPECT_FALSE(f.finish(&error));
  EXPECT_EQ(textOf(victim), "precious\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(dir.names().size(), 2u);
}

// A write that fails (here: the file size limit, as a full disk would): the export fails, nothing
// partial appears at the path, an older file there stays whole, and no temporary is left.
TEST(BufferedFile, AFailedExportLeavesNoPartialFile) {
  Dir dir;
  const std::string path = dir / "out.json";
  std::ofstream(path) << "the previous export\n";
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  bool finished = true;
  {
    BufferedFile f(path);
    ASSERT_TRUE(f.ok()) << f.error();
    f.text() = std::string(1 << 16, 'x');
    f.flushWhenOver(1);
    finished = f.finish(&error);
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(finished);
  EXPECT_NE(error.find(path + ": write failed: "), std::string::npos) << error;
  EXPECT_EQ(textOf(path), "the previous export\n");
  EXPECT_EQ(dir.names().size(), 1u);
}

// An export abandoned half way (an error before finish()) leaves nothing.
TEST(BufferedFile, AnAbandonedExportLeavesNothing) {
  Dir dir;
  {
    BufferedFile f(dir / "out.pftrace");
    ASSERT_TRUE(f.ok());
    f.text() = std::string(1 << 20, 'x');
    f.flushWhenOver(1);
  }
  EXPECT_EQ(dir.names().size(), 0u);
}

}  // namespace
}  // namespace gpufl::exporter
