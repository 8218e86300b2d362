#include "runtime/control_channel.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace gpufl::runtime {
namespace {

std::string privateDir() {
  char tmpl[] = "/tmp/gpufl-ctl-test-XXXXXX";
  const char* dir = mkdtemp(tmpl);
  return dir != nullptr ? dir : "";
}

TEST(ControlChannel, ARequestReachesTheCallbackAndTheSocketIsPrivate) {
  const std::string dir = privateDir();
  ASSERT_FALSE(dir.empty());
  std::mutex mu;
  std::condition_variable cv;
  std::string got;
  ControlChannel channel;
  std::string why;
  ASSERT_TRUE(channel.start(
      [&](std::string_view verb, std::string_view arg) {
        std::lock_guard lock(mu);
        got = std::string(verb) + "|" + std::string(arg);
        cv.notify_all();
      },
      &why, dir))
      << why;
  struct stat st {};
  ASSERT_EQ(stat(channel.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u) << "the socket is the user's alone";
  ASSERT_TRUE(sendControlRequest(getpid(), "dump stuck in step 3\n", &why, dir)) << why;
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return !got.empty(); }));
  EXPECT_EQ(got, "dump|stuck in step 3");
  lock.unlock();
  channel.stop();
  EXPECT_NE(access(channel.path().c_str(), F_OK), 0) << "the socket is removed at stop";
  rmdir(dir.c_str());
}

TEST(ControlChannel, AProcessWithoutASocketIsAClearError) {
  const std::string dir = privateDir();
  std::string why;
  EXPECT_FALSE(sendControlRequest(999999, "dump", &why, dir));
  EXPECT_NE(why.find("has no gpufl control socket"), std::string::npos) << why;
  rmdir(dir.c_str());
}

TEST(ControlChannel, ARunDirOpenToOthersIsRefused) {
  const std::string dir = privateDir();
  chmod(dir.c_str(), 0777);
  setenv("XDG_RUNTIME_DIR", "/nonexistent-gpufl", 1);
  std::string why;
  ControlChannel channel;
  EXPECT_TRUE(channel.start([](std::string_view, std::string_view) {}, &why, dir) || !why.empty());
  channel.stop();
  // controlRunDir checks its own directory: one open to others is refused.
  const std::string own = dir + "/gpufl";
  setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
  ASSERT_EQ(mkdir(own.c_str(), 0755), 0);
  EXPECT_EQ(controlRunDir(false, &why), "");
  EXPECT_NE(why.find("not a private directory"), std::string::npos) << why;
  rmdir(own.c_str());
  rmdir(dir.c_str());
  unsetenv("XDG_RUNTIME_DIR");
}

}  // namespace
}  // namespace gpufl::runtime
