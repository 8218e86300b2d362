// `gpufl export --sqlite`'s failures: a session given twice, a link at the output path, and what a
// failed export leaves (nothing new). The tables themselves: python/tests/test_export_sqlite.py.
#include "export/sqlite_export.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "export/export_test_util.hpp"

namespace gpufl::exporter {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(GPUFL_TEST_DATA_DIR) + "/h200/matmul_tiling";

using testing::Dir;
using testing::textOf;

TEST(SqliteExport, WritesTheDatabaseWholeAndLeavesNoTemporary) {
  Dir dir;
  const SqliteExportResult r = exportSqlite({kFixture}, "", dir / "out.db");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.sessions, 1u);
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.db"});
}

// The same session twice used to end in SQLite's own words ("UNIQUE constraint failed") and a
// partial file; now the message says what is wrong, and an older database at the path stays.
TEST(SqliteExport, ASessionGivenTwiceIsAClearErrorAndLeavesNothingNew) {
  Dir dir;
  const std::string db = dir / "out.db";
  std::ofstream(db) << "an older database\n";
  SqliteExportResult r = exportSqlite({kFixture, kFixture}, "", db);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("of '" + kFixture + "' is already exported from '" + kFixture + "'"),
            std::string::npos)
      << r.error;
  EXPECT_EQ(textOf(db), "an older database\n");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.db"});

  // A log whose records were copied into itself: every kernel_def twice.
  const std::string copy = dir / "copy";
  for (const char* channel : {".device.log", ".scope.log", ".system.log"}) {
    const std::string text = textOf(kFixture + channel);
    std::ofstream(copy + channel) << text << text;
  }
  r = exportSqlite({copy}, "", db);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("' defines kernel "), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("twice: its records appear twice under the prefix"), std::string::npos)
      << r.error;
  EXPECT_EQ(r.error.find("UNIQUE"), std::string::npos) << r.error;
  EXPECT_EQ(textOf(db), "an older database\n");
}

TEST(SqliteExport, ALinkAtTheOutputIsRefused) {
  Dir dir;
  const std::string victim = dir / "victim", link = dir / "out.db";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
  const SqliteExportResult r = exportSqlite({kFixture}, "", link);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("a symbolic link; refusing to write through it"), std::string::npos)
      << r.error;
  EXPECT_EQ(textOf(victim), "precious\n");
  EXPECT_TRUE(fs::is_symlink(link));
}

}  // namespace
}  // namespace gpufl::exporter
