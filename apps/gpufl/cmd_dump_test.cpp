// `gpufl dump PID`: the request reaches a real control socket (ControlChannel, as a recording
// program opens it), and each way of failing says what went wrong.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>

#include "cli_test_util.hpp"
#include "runtime/control_channel.hpp"

namespace gpufl::cli {
namespace {

using testing::CliRun;

CliRun run(std::vector<std::string> args) {
  return testing::runCaptured(std::move(args));
}

// XDG_RUNTIME_DIR pointed at a fresh private directory for the test (the control sockets' run dir
// is $XDG_RUNTIME_DIR/gpufl), restored afterwards.
class PrivateRunDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpufl_dump_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    if (const char* old = std::getenv("XDG_RUNTIME_DIR")) old_ = old, had_old_ = true;
    setenv("XDG_RUNTIME_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (had_old_)
      setenv("XDG_RUNTIME_DIR", old_.c_str(), 1);
    else
      unsetenv("XDG_RUNTIME_DIR");
    std::filesystem::remove_all(dir_);
  }
  std::string dir_, old_;
  bool had_old_ = false;
};

TEST_F(PrivateRunDir, TheRequestReachesTheProgramsControlSocket) {
  std::mutex mu;
  std::condition_variable cv;
  std::string verb, argument;
  runtime::ControlChannel channel;
  std::string why;
  ASSERT_TRUE(channel.start(
      [&](std::string_view v, std::string_view a) {
        std::lock_guard lock(mu);
        verb = v;
        argument = a;
        cv.notify_all();
      },
      &why))
      << why;
  const CliRun r = run({"dump", std::to_string(getpid()), "--reason", "checking on the run"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("asked process " + std::to_string(getpid())), std::string::npos) << r.out;
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return !verb.empty(); }));
  EXPECT_EQ(verb, "dump");
  EXPECT_EQ(argument, "checking on the run");
}

TEST_F(PrivateRunDir, WithoutAReasonTheDefaultOneIsSent) {
  std::mutex mu;
  std::condition_variable cv;
  std::string argument;
  bool got = false;
  runtime::ControlChannel channel;
  std::string why;
  ASSERT_TRUE(channel.start(
      [&](std::string_view, std::string_view a) {
        std::lock_guard lock(mu);
        argument = a;
        got = true;
        cv.notify_all();
      },
      &why))
      << why;
  EXPECT_EQ(run({"dump", std::to_string(getpid())}).code, kExitOk);
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return got; }));
  EXPECT_EQ(argument, "asked by gpufl dump");
}

TEST_F(PrivateRunDir, AProcessWithoutASocketIsNamed) {
  CliRun r = run({"dump", std::to_string(getpid())});  // no run dir at all
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("gpufl dump: process " + std::to_string(getpid()) +
                       " has no gpufl control socket: "),
            std::string::npos)
      << r.err;
  std::string why;
  ASSERT_FALSE(runtime::controlRunDir(true, &why).empty()) << why;  // a run dir, no socket
  r = run({"dump", std::to_string(getpid())});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("gpufl dump: process " + std::to_string(getpid()) +
                       " has no gpufl control socket"),
            std::string::npos)
      << r.err;
}

TEST(CliDump, NoSuchProcessIsAFailureNamingIt) {
  // A child that has exited and been reaped: its pid names no process (until reused).
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const CliRun r = run({"dump", std::to_string(child)});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("gpufl dump: no process " + std::to_string(child)), std::string::npos)
      << r.err;
}

TEST(CliDump, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(run({"dump"}).code, kExitUsage);
  EXPECT_EQ(run({"dump", "abc"}).code, kExitUsage);
  EXPECT_EQ(run({"dump", "0"}).code, kExitUsage);
  const CliRun r = run({"dump", std::to_string(getpid()), "--reason", "two\nlines"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--reason must be one line"), std::string::npos) << r.err;
}

TEST(CliDump, HelpListsIt) {
  const CliRun r = run({"help"});
  EXPECT_NE(r.out.find("dump"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpufl::cli
