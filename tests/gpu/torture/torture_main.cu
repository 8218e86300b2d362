// gpufl_torture CASE [args]: runs one case (torture.hpp). With GPUFL_TORTURE_LINKED=1 the program
// starts gpufl itself (gpufl::init, options from the GPUFL_* environment) and shuts it down at the
// end, as a linked program would; without it, it is an unmodified program for `gpufl trace`.
#include <execinfo.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "gpufl/gpufl.hpp"
#include "torture.hpp"

namespace torture {
namespace {
std::mutex g_mutex;
std::map<std::string, long>& counts() {
  static std::map<std::string, long> c;
  return c;
}
}  // namespace

void count(const std::string& kernel, long n) {
  std::lock_guard lock(g_mutex);
  counts()[kernel] += n;
}

void printCounts() {
  std::lock_guard lock(g_mutex);
  for (const auto& [name, n] : counts()) std::printf("COUNT %s %ld\n", name.c_str(), n);
  std::fflush(stdout);
}

void result(const char* name, double value) {
  std::printf("RESULT %s %.6g\n", name, value);
  std::fflush(stdout);
}

std::map<std::string, Case>& cases() {
  static std::map<std::string, Case> c;
  return c;
}

Range::Range(const char* name) {
  nvtxRangePushA(name);
}
Range::~Range() {
  nvtxRangePop();
}

}  // namespace torture

namespace {
// Diagnostics for the suite: a crash prints the crashing thread's stack, and SIGUSR2 (the harness
// sends it to every thread of a run that hangs) prints the receiving thread's, as `module(+offset)`
// frames the harness turns into function names with addr2line.
void printStack(int sig) {
  char head[96];
  const int n = std::snprintf(head, sizeof head, "TORTURE-STACK signal %d thread %ld\n", sig,
                              long(syscall(SYS_gettid)));
  (void)!write(2, head, n);
  void* frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
}

void onCrash(int sig) {
  printStack(sig);
  signal(sig, SIG_DFL);
  raise(sig);
}

void installDiagnostics() {
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc now: backtrace() must not allocate inside a handler later
  signal(SIGSEGV, onCrash);
  signal(SIGBUS, onCrash);
  signal(SIGUSR2, printStack);
}
}  // namespace

int main(int argc, char** argv) {
  installDiagnostics();
  auto& cases = torture::cases();
  if (argc < 2 || !cases.count(argv[1])) {
    std::fprintf(stderr, "usage: %s CASE [args]\ncases:", argv[0]);
    for (const auto& [name, c] : cases) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  const char* linked = std::getenv("GPUFL_TORTURE_LINKED");
  const bool link = linked != nullptr && std::strcmp(linked, "1") == 0;
  if (link) {
    gpufl::InitOptions options;
    options.app_name = std::string("torture_") + argv[1];
    gpufl::init(options);
  }
  const int status = cases[argv[1]](argc - 1, argv + 1);
  torture::printCounts();
  if (link) gpufl::shutdown();
  return status;
}
