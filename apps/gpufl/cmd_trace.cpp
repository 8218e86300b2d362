// `gpufl trace [--engine E] [-o PREFIX] [--sample-rate MS] -- cmd args...`: runs an unmodified
// program with GPU Flight injected (CUDA_INJECTION64_PATH + GPUFL_* variables), passes its output,
// signals and exit status through, then says where the logs are and prints a short summary.
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli.hpp"
#include "trace_summary.hpp"

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

volatile sig_atomic_t g_child = 0;

// While the program runs, Ctrl-C and kill reach it (it shares our terminal's process group for
// SIGINT; SIGTERM sent to gpufl is forwarded), and gpufl waits for it to flush and exit.
void forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

fs::path selfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  buf[n] = '\0';
  return fs::path(buf).parent_path();
}

// The injection library: $GPUFL_INJECT_LIB, beside the executable or one level up (Python package:
// gpufl/bin/gpufl and gpufl/libgpufl_inject.so), ../lib (install), or the build tree this binary
// came from.
std::string findInjectionLibrary() {
  if (const char* env = std::getenv("GPUFL_INJECT_LIB"); env && *env) return env;
  fs::path dir = selfDir();
  for (const fs::path& candidate :
       {dir / "libgpufl_inject.so", dir / ".." / "libgpufl_inject.so",
        dir / ".." / "lib" / "libgpufl_inject.so", dir / ".." / "lib64" / "libgpufl_inject.so"}) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return fs::canonical(candidate, ec).string();
  }
#ifdef GPUFL_INSTALL_LIBDIR
  if (std::error_code ec; fs::exists(dir / ".." / GPUFL_INSTALL_LIBDIR / "libgpufl_inject.so", ec))
    return fs::canonical(dir / ".." / GPUFL_INSTALL_LIBDIR / "libgpufl_inject.so", ec).string();
#endif
#ifdef GPUFL_INJECT_BUILD_PATH
  if (std::error_code ec; fs::exists(GPUFL_INJECT_BUILD_PATH, ec)) return GPUFL_INJECT_BUILD_PATH;
#endif
  return {};
}

struct TraceArgs {
  std::string engine = "None";
  std::string prefix;
  int sample_rate_ms = 100;
  bool debug = false;
  bool stack = false;
  bool quiet = false;
  std::vector<std::string> command;
};

int runTraced(const TraceArgs& a, CliContext& ctx) {
  std::string lib = findInjectionLibrary();
  if (lib.empty()) {
    ctx.err << "gpufl trace: cannot find libgpufl_inject.so (set GPUFL_INJECT_LIB to its path)\n";
    return kExitFailure;
  }
  std::string prefix =
      a.prefix.empty() ? "./gpufl_trace_" + fs::path(a.command[0]).filename().string() : a.prefix;
  pid_t pid = fork();
  if (pid < 0) {
    ctx.err << "gpufl trace: fork failed: " << std::strerror(errno) << "\n";
    return kExitFailure;
  }
  if (pid == 0) {
    setenv("CUDA_INJECTION64_PATH", lib.c_str(), 1);
    setenv("GPUFL_LOG_PATH", prefix.c_str(), 1);
    setenv("GPUFL_APP_NAME", fs::path(a.command[0]).filename().c_str(), 1);
    setenv("GPUFL_ENGINE", a.engine.c_str(), 1);
    setenv("GPUFL_SAMPLE_RATE_MS", std::to_string(a.sample_rate_ms).c_str(), 1);
    setenv("GPUFL_ROOT_PID", std::to_string(getpid()).c_str(), 1);
    if (a.debug) setenv("GPUFL_DEBUG", "1", 1);
    if (a.stack) setenv("GPUFL_STACK_TRACE", "1", 1);
    std::vector<char*> argv;
    for (const auto& s : a.command) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "gpufl trace: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  g_child = pid;
  struct sigaction sa {
  }, old_int{}, old_term{};
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  g_child = 0;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!a.quiet) printTraceSummary(prefix, code, ctx);
  return code;
}

}  // namespace

void addTraceCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* cmd =
      app.add_subcommand("trace", "Run a program with GPU Flight injected (no code change)");
  cmd->add_option("--engine", args->engine,
                  "None, PcSampling, SassMetrics, PcSamplingWithSass, RangeProfiler")
      ->check(CLI::IsMember(
          {"None", "PcSampling", "SassMetrics", "PcSamplingWithSass", "RangeProfiler"},
          CLI::ignore_case));
  cmd->add_option("-o,--output", args->prefix, "log prefix (default ./gpufl_trace_<program>)");
  cmd->add_option("--sample-rate", args->sample_rate_ms, "system sampling period in ms (0 = off)")
      ->check(CLI::Range(0, 3600000));
  cmd->add_flag("--debug", args->debug, "gpufl diagnostics on stderr");
  cmd->add_flag("--stack", args->stack, "record the host call stack of each launch");
  cmd->add_flag("-q,--quiet", args->quiet, "no summary after the program ends");
  cmd->add_option("command", args->command, "the program and its arguments, after --")->required();
  cmd->prefix_command(false);
  cmd->callback([args, &ctx] { ctx.exit_code = runTraced(*args, ctx); });
}

}  // namespace gpufl::cli
