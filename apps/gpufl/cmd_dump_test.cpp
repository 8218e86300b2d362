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

// This process's control socket, as a recording program opens it: the first request it receives.
class Listening : public PrivateRunDir {
 protected:
  void SetUp() override {
    PrivateRunDir::SetUp();
    std::string why;
    ASSERT_TRUE(channel_.start(
        [this](std::string_view v, std::string_view a) {
          std::lock_guard lock(mu_);
          if (received_) return;
          verb_ = v;
          argument_ = a;
          received_ = true;
          cv_.notify_all();
        },
        &why))
        << why;
  }
  void TearDown() override {
    channel_.stop();
    PrivateRunDir::TearDown();
  }
  // True when a request came within 10 s.
  bool received() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return received_; });
  }
  runtime::ControlChannel channel_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool received_ = false;
  std::string verb_, argument_;
};

TEST_F(Listening, TheRequestReachesTheProgramsControlSocket) {
  const CliRun r = run({"dump", std::to_string(getpid()), "--reason", "checking on the run"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("asked process " + std::to_string(getpid())), std::string::npos) << r.out;
  ASSERT_TRUE(received());
  EXPECT_EQ(verb_, "dump");
  EXPECT_EQ(argument_, "checking on the run");
}

TEST_F(Listening, WithoutAReasonTheDefaultOneIsSent) {
  EXPECT_EQ(run({"dump", std::to_string(getpid())}).code, kExitOk);
  ASSERT_TRUE(received());
  EXPECT_EQ(argument_, "asked by gpufl dump");
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
