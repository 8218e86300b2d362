// Names with terminal control characters, written to a real log and read back through `gpufl
// sessions`, `gpufl report` and `gpufl cat`: nothing a terminal acts on reaches stdout or stderr
// raw, and a newline in a name does not break the sessions table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cli_test_util.hpp"
#include "log/log_writer.hpp"

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

const std::string kHostile =
    "\x1b]0;owned\x07\x1b[2J\nnext\r\xC2\x9B"
    "1m";

// Any byte (or UTF-8 encoded C1 control) a terminal could act on, other than the line breaks.
bool hasRawControl(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') continue;
    if (c < 0x20 || c == 0x7f) return true;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) return true;
  }
  return false;
}

using Output = testing::CliRun;

class CliEscape : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpufl_cli_escape_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    prefix_ = (dir_ / "run").string();
    std::string error;
    auto w = log::LogWriter::open({prefix_}, &error);
    ASSERT_TRUE(w) << error;
    SessionStart s;
    s.sid = "0123abcd";
    s.session_id = "0123abcd-0000-4000-8000-000000000001";
    s.app = "app" + kHostile;
    s.start_ns = 1000;
    w->onSessionStart(s);
    KernelDef def;
    def.sid = s.sid;
    def.id = 1;
    def.name = def.demangled = "kern" + kHostile;
    w->onKernelDef(def);
    KernelEvent k;
    k.sid = s.sid;
    k.def_id = 1;
    k.start_ns = 2000;
    k.end_ns = 2500;
    w->onKernel(k);
    SessionEnd e;
    e.sid = s.sid;
    e.end_ns = 9000;
    w->onSessionEnd(e);
    w->close();
  }
  void TearDown() override { fs::remove_all(dir_); }

  Output run(std::vector<std::string> args) { return testing::runCaptured(std::move(args)); }

  fs::path dir_;
  std::string prefix_;
};

TEST_F(CliEscape, SessionsTableKeepsOneLinePerSession) {
  Output r = run({"sessions", prefix_, "--wide"});  // every column: no "left out" line
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_FALSE(hasRawControl(r.out)) << r.out;
  EXPECT_NE(r.out.find("app\\x1b]0;owned\\x07\\x1b[2J\\nnext\\r\\u009b1m"), std::string::npos)
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;  // header + one session
}

TEST_F(CliEscape, ReportTextAndJsonCarryNoRawControls) {
  Output text = run({"report", prefix_});
  ASSERT_EQ(text.code, kExitOk) << text.err;
  EXPECT_FALSE(hasRawControl(text.out)) << text.out;
  EXPECT_NE(text.out.find("kern\\x1b]0;owned"), std::string::npos) << text.out;
  EXPECT_FALSE(hasRawControl(text.err)) << text.err;
  Output json = run({"report", prefix_, "--json"});
  ASSERT_EQ(json.code, kExitOk) << json.err;
  EXPECT_FALSE(hasRawControl(json.out)) << json.out;
}

TEST_F(CliEscape, CatAndWarningsCarryNoRawControls) {
  Output cat = run({"cat", prefix_});
  ASSERT_EQ(cat.code, kExitOk) << cat.err;
  EXPECT_FALSE(hasRawControl(cat.out)) << cat.out;
  // A session prefix matching nothing: the reader's warning lists the sessions it has, app names
  // included.
  Output none = run({"report", prefix_, "--session", "ffff"});
  EXPECT_FALSE(hasRawControl(none.err)) << none.err;
  Output cat_none = run({"cat", prefix_, "--session", "ffff"});
  EXPECT_FALSE(hasRawControl(cat_none.err)) << cat_none.err;
  EXPECT_NE(none.err.find("app\\x1b"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace gpufl::cli
