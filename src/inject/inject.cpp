// The CUDA_INJECTION64_PATH entry for `gpufl trace`: the driver loads this library while it
// initialises and calls InitializeInjection, where a session starts with options from the GPUFL_*
// environment (see src/runtime/options_env.hpp). A child process of the traced program writes its
// own logs, its pid appended to the prefix.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpufl/gpufl.hpp"
#include "inject/signal_flush.hpp"

namespace {

// The traced program's pid is GPUFL_ROOT_PID (set by `gpufl trace` in the child it starts); any
// other process that loads CUDA under the same environment gets "<prefix>.<pid>".
void separateChildLogs() {
  const char* root = std::getenv("GPUFL_ROOT_PID");
  const char* path = std::getenv("GPUFL_LOG_PATH");
  if (root == nullptr || path == nullptr) return;
  if (std::atoll(root) == static_cast<long long>(getpid())) return;
  std::string own = std::string(path) + "." + std::to_string(getpid());
  setenv("GPUFL_LOG_PATH", own.c_str(), 1);
}

// A Python program ended by an uncaught KeyboardInterrupt finalizes the interpreter and then kills
// itself with SIGINT (Python >= 3.8), so C atexit handlers never run. Py_AtExit callbacks run
// inside Py_FinalizeEx, before that: register the flush there too when the process is a Python.
void flushAtPythonExit() {
  using PyAtExit = int (*)(void (*)());
  auto py_at_exit = reinterpret_cast<PyAtExit>(dlsym(RTLD_DEFAULT, "Py_AtExit"));
  if (py_at_exit != nullptr) py_at_exit([] { gpufl::shutdown(); });
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static bool done =
      false;  // the driver calls it once per process; guard against a second load anyway
  if (done) return 1;
  done = true;
  setenv("GPUFL_INJECTED", "1", 1);
  separateChildLogs();
  gpufl::InitOptions options;  // every field comes from GPUFL_* overrides applied inside init()
  options.enable_nvtx = true;  // NVTX_INJECTION64_PATH is set by gpufl trace (GPUFL_NVTX=0 wins)
  gpufl::init(options);
  flushAtPythonExit();
  if (!gpufl::inject::installSignalFlush())
    std::fprintf(stderr,
                 "gpufl: could not install the SIGINT/SIGTERM flush; logs are still "
                 "flushed at exit\n");
  return 1;  // never fail the program's CUDA initialisation because of gpufl
}
