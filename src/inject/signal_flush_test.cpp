// An injected program that calls abort() still leaves a complete log: the SIGABRT handler waits for
// the flush, then the program dies by SIGABRT as it would have without gpufl. Runs without a GPU:
// the injection's session records without CUDA and says why.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SignalFlush, AnAbortingProgramLeavesItsSessionEnd) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gpufl_abort_flush_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "aborted").string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("GPUFL_LOG_PATH", prefix.c_str(), 1);
    setenv("GPUFL_SAMPLE_RATE_MS", "0", 1);
    void* lib = dlopen(GPUFL_INJECT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) _exit(3);
    auto initialize = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
    if (initialize == nullptr) _exit(4);
    initialize();
    std::abort();
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGABRT);
  const std::string log = readAll(prefix + ".device.log");
  EXPECT_NE(log.find("\"session_start\""), std::string::npos);
  EXPECT_NE(log.find("\"session_end\""), std::string::npos) << log.substr(0, 2000);
  std::filesystem::remove_all(dir);
}

}  // namespace
