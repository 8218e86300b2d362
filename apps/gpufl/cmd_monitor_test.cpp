// `gpufl monitor`'s argument handling in-process; the daemon itself (signals, real servers) is
// tested by tests/fleet/monitor_servers_test.py against the built binary.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "cli_test_util.hpp"

namespace gpufl::cli {
namespace {

using testing::runCaptured;

TEST(CliMonitor, NonLoopbackWithoutTokenIsRefused) {
  unsetenv("GPUFL_MONITOR_TOKEN");
  auto r = runCaptured({"monitor", "--listen", "0.0.0.0:0", "--nvml-library", "/nonexistent"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(
      r.err.find("gpufl monitor: refusing to listen on 0.0.0.0 (not loopback) without a token"),
      std::string::npos)
      << r.err;
}

TEST(CliMonitor, BadArguments) {
  EXPECT_EQ(runCaptured({"monitor", "--interval", "0"}).code, kExitUsage);
  EXPECT_EQ(runCaptured({"monitor", "--interval", "fast"}).code, kExitUsage);
  EXPECT_EQ(runCaptured({"monitor", "--nvml-script", "/nonexistent/s.ndjson"}).code, kExitUsage);
  auto r = runCaptured({"monitor", "--listen", "localhost", "--nvml-library", "/nonexistent"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("--listen 'localhost': expected HOST:PORT"), std::string::npos) << r.err;
}

TEST(CliMonitor, EmptyTokenFileIsAnError) {
  char path[] = "/tmp/gpufl_token_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  auto r = runCaptured({"monitor", "--token-file", path});
  ::close(fd);
  std::remove(path);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find(std::string("--token-file ") + path + ": the file is empty"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gpufl::cli
