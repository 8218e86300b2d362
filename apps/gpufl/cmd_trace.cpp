// `gpufl trace [--engine E] [-o PREFIX] [--sample-rate MS] [--no-nvtx] -- cmd args...`: runs an
// unmodified program with GPU Flight injected (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH and
// GPUFL_* variables: trace_env.hpp), passes its output, signals and exit status through, then says
// where the logs are and prints a short summary.
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli.hpp"
#include "trace_env.hpp"
#include "trace_summary.hpp"

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

volatile sig_atomic_t g_child = 0;

// While the program runs, gpufl waits for it to flush and exit, and signals meant for the program
// reach it once: a terminal's Ctrl-C (si_code SI_KERNEL) already went to the whole foreground
// process group, the program included, so only a SIGINT sent to gpufl itself with kill() is passed
// on; SIGTERM and SIGHUP are always passed on (a second SIGTERM from a group kill is harmless).
void forward(int sig, siginfo_t* info, void*) {
  if (g_child <= 0) return;
  if (sig == SIGINT && info != nullptr && info->si_code == SI_KERNEL) return;
  kill(g_child, sig);
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
  bool light = false;
  bool sync = false;
  bool memory = false;
  bool kernel_ranges = false;
  bool quiet = false;
  bool no_nvtx = false;
  std::vector<std::string> command;
};

int runTraced(const TraceArgs& a, CliContext& ctx) {
  std::string lib = findInjectionLibrary();
  if (lib.empty()) {
    ctx.err << "gpufl trace: cannot find libgpufl_inject.so (set GPUFL_INJECT_LIB to its path)\n";
    return kExitFailure;
  }
  // Absolute, so a program that changes directory before CUDA starts still logs where we look.
  const std::string given =
      a.prefix.empty() ? "gpufl_trace_" + fs::path(a.command[0]).filename().string() : a.prefix;
  std::error_code ec;
  const fs::path absolute = fs::absolute(given, ec);
  const std::string prefix = ec ? given : absolute.lexically_normal().string();
  TraceEnvRequest env_request;
  env_request.inject_lib = lib;
  env_request.prefix = prefix;
  env_request.app_name = fs::path(a.command[0]).filename().string();
  env_request.engine = a.engine;
  env_request.sample_rate_ms = a.sample_rate_ms;
  env_request.debug = a.debug;
  env_request.stack = a.stack;
  env_request.light = a.light;
  env_request.sync = a.sync;
  env_request.memory = a.memory;
  env_request.kernel_ranges = a.kernel_ranges;
  env_request.nvtx = !a.no_nvtx;
  // Built before fork: the child only calls setenv and exec.
  const auto child_env =
      traceEnvironment(env_request, [](const char* name) { return std::getenv(name); });
  // Handlers before fork, so no signal finds gpufl unprepared; exec resets them in the child.
  struct sigaction sa {
  }, old_int{}, old_term{}, old_hup{};
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  // Logs older than this are an earlier run's (1 s of slack for coarse file timestamps).
  const auto started = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  auto restoreHandlers = [&] {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
  };
  pid_t pid = fork();
  if (pid < 0) {
    restoreHandlers();
    ctx.err << "gpufl trace: fork failed: " << std::strerror(errno) << "\n";
    return kExitFailure;
  }
  if (pid == 0) {
    for (const auto& [name, value] : child_env) setenv(name.c_str(), value.c_str(), 1);
    // The traced program keeps this pid through exec; processes it starts log under their own.
    setenv("GPUFL_ROOT_PID", std::to_string(getpid()).c_str(), 1);
    std::vector<char*> argv;
    for (const auto& s : a.command) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "gpufl trace: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  g_child = pid;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  restoreHandlers();
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!a.quiet) printTraceSummary(prefix, code, ctx, started);
  // Died of an interrupt: gpufl dies of it too, so a calling shell script stops as it would
  // without gpufl. Crashes (SIGSEGV, SIGABRT, ...) stay an exit status: no core of gpufl's own.
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) ctx.reraise_signal = sig;
  }
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
  cmd->add_flag("--light", args->light,
                "PC sampling every 2^16 cycles instead of 2^12, hot PCs without SASS text: the "
                "preset for always-on use");
  cmd->add_flag("--sync", args->sync,
                "record each time the program waits for the GPU (stream/event/device synchronize)");
  cmd->add_flag("--memory", args->memory,
                "record device, pinned and managed memory allocations and releases");
  cmd->add_flag("--kernel-ranges", args->kernel_ranges,
                "with --engine RangeProfiler: counters per kernel launch inside the outermost scope "
                "instead of per scope");
  cmd->add_flag("-q,--quiet", args->quiet, "no summary after the program ends");
  cmd->add_flag("--no-nvtx", args->no_nvtx,
                "do not turn NVTX ranges (torch.cuda.nvtx.range, ...) into scopes");
  cmd->add_option("command", args->command, "the program and its arguments, after --")->required();
  cmd->prefix_command(false);
  cmd->callback([args, &ctx] { ctx.exit_code = runTraced(*args, ctx); });
}

}  // namespace gpufl::cli
