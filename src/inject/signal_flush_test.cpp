// An injected program that calls abort(), crashes or dies by std::terminate still leaves a complete
// log with an incident: the handler records it, waits for the flush, then the program dies by the
// signal it would have died by without gpufl. Runs without a GPU: the injection's session records
// without CUDA and says why.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `crash` in a child under the injection library; returns the child's wait status and the
// device log it left.
std::pair<int, std::string> runInjected(const char* name, void (*crash)()) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpufl_crash_flush_" + std::string(name) + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / name).string();
  const pid_t child = fork();
  if (child == 0) {
    setenv("GPUFL_LOG_PATH", prefix.c_str(), 1);
    setenv("GPUFL_SAMPLE_RATE_MS", "0", 1);
    void* lib = dlopen(GPUFL_INJECT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) _exit(3);
    auto initialize = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
    if (initialize == nullptr) _exit(4);
    initialize();
    crash();
    _exit(5);
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::string log = readAll(prefix + ".device.log");
  std::filesystem::remove_all(dir);
  return {status, log};
}

// A real fault (a store to a page with no access), which the sanitizers do not stop before it
// happens as they would a store through a null pointer.
void segfault() {
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *static_cast<volatile int*>(page) = 1;
}

void expectDiedBy(int status, int sig) {
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), sig);
}

TEST(SignalFlush, AnAbortingProgramLeavesItsSessionEndAndAnIncident) {
  auto [status, log] = runInjected("aborted", [] { std::abort(); });
  expectDiedBy(status, SIGABRT);
  EXPECT_NE(log.find("\"session_start\""), std::string::npos);
  EXPECT_NE(log.find("\"session_end\""), std::string::npos) << log.substr(0, 2000);
  EXPECT_NE(log.find("\"error_name\":\"SIGABRT\""), std::string::npos) << log.substr(0, 3000);
}

TEST(SignalFlush, ASegfaultLeavesEverythingBufferedAndDiesBySigsegv) {
  auto [status, log] = runInjected("segv", segfault);
  expectDiedBy(status, SIGSEGV);
  EXPECT_NE(log.find("\"type\":\"incident\""), std::string::npos) << log.substr(0, 3000);
  EXPECT_NE(log.find("\"kind\":\"signal\""), std::string::npos);
  EXPECT_NE(log.find("SIGSEGV at address 0x"), std::string::npos) << log.substr(0, 3000);
  EXPECT_NE(log.find("\"session_end\""), std::string::npos);
}

TEST(SignalFlush, AnUncaughtExceptionIsATerminateIncidentWithItsMessage) {
  auto [status, log] = runInjected("terminate", [] {
    // As an exception escaping a noexcept function or a thread does (gtest would catch a plain
    // throw in the test body).
    try {
      throw std::runtime_error("the loss became NaN");
    } catch (...) {
      std::terminate();
    }
  });
  expectDiedBy(status, SIGABRT);
  EXPECT_NE(log.find("\"kind\":\"terminate\""), std::string::npos) << log.substr(0, 3000);
  EXPECT_NE(log.find("std::terminate: the loss became NaN"), std::string::npos);
  EXPECT_EQ(log.find("\"error_name\":\"SIGABRT\""), std::string::npos)
      << "the abort that follows is the same incident";
  EXPECT_NE(log.find("\"session_end\""), std::string::npos);
}

TEST(SignalFlush, TurnedOffTheSignalsAreTheProgramsAlone) {
  setenv("GPUFL_INCIDENT_SIGNALS", "0", 1);
  auto [status, log] = runInjected("off", segfault);
  unsetenv("GPUFL_INCIDENT_SIGNALS");
  expectDiedBy(status, SIGSEGV);
  EXPECT_EQ(log.find("\"incident\""), std::string::npos);
}

}  // namespace
