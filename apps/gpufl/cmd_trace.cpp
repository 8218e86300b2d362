// `gpufl trace [--engine E] [-o PREFIX] [--sample-rate MS] [--no-nvtx] -- cmd args...`: runs an
// unmodified program with GPU Flight injected (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH and
// GPUFL_* variables: trace_env.hpp), passes its output, signals and exit status through
// (trace_process.hpp), then says where the logs are and prints a short summary.
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
#include "trace_process.hpp"
#include "trace_summary.hpp"

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

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
  bool kernel_blocks = false;
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
  env_request.kernel_blocks = a.kernel_blocks;
  env_request.nvtx = !a.no_nvtx;
  const auto child_env =
      traceEnvironment(env_request, [](const char* name) { return std::getenv(name); });
  const std::string no_driver = nvidiaDriverMissing();
  if (a.debug) {
    // What gpufl trace itself does; the injected library's own diagnostics follow (GPUFL_DEBUG).
    ctx.err << "gpufl trace: NVIDIA driver: "
            << (no_driver.empty() ? std::string("libcuda.so.1 loads")
                                  : "missing (" + no_driver + ")")
            << "\ngpufl trace: injection library: " << lib
            << "\ngpufl trace: log prefix: " << prefix
            << "\ngpufl trace: environment for the program:\n";
    for (const auto& [name, value] : child_env) ctx.err << "  " << name << "=" << value << "\n";
    ctx.err << "gpufl trace: running:";
    for (const std::string& word : a.command) ctx.err << " " << word;
    ctx.err << "\n";
    ctx.err.flush();
  }
  if (!a.quiet && (a.engine == "SassMetrics" || a.engine == "PcSamplingWithSass")) {
    // Said before the run, where a user comparing outputs reads it: the engine changes timing.
    ctx.err
        << "gpufl trace: " << a.engine
        << " traces kernels one at a time (streams do not overlap) while it instruments "
           "kernels, at each kernel's first launches: results that depend on timing, such as "
           "atomic reductions, may differ from a plain run; for identical "
           "numbers turn deterministic ops on (JAX: XLA_FLAGS=--xla_gpu_deterministic_ops=true; "
           "PyTorch: torch.use_deterministic_algorithms(True))\n";
    ctx.err.flush();
  }
  // Logs older than this are an earlier run's (1 s of slack for coarse file timestamps).
  const auto started = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  const ProgramRun run = runProgram(a.command, child_env);
  if (!run.started) {
    ctx.err << "gpufl trace: fork failed: " << std::strerror(run.errno_value) << "\n";
    return kExitFailure;
  }
  const int status = run.wait_status;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!a.quiet) printTraceSummary(prefix, code, ctx, started, no_driver);
  // Died of a signal: gpufl dies of the same one (main.cpp, with no core of its own), so whoever
  // waits for it -- a shell script, Python's subprocess, a supervisor -- sees what it would see
  // without gpufl (an aborted program: SIGABRT, not exit 134).
  if (WIFSIGNALED(status)) ctx.reraise_signal = WTERMSIG(status);
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
  cmd->add_flag("--debug", args->debug,
                "say what gpufl trace does (driver, library, environment) and turn on the injected "
                "gpufl's diagnostics, on stderr");
  cmd->add_flag("--stack", args->stack, "record the host call stack of each launch");
  cmd->add_flag("--light", args->light,
                "PC sampling every 2^16 cycles instead of 2^12, hot PCs without SASS text: the "
                "preset for always-on use");
  cmd->add_flag("--sync", args->sync,
                "record each time the program waits for the GPU (stream/event/device synchronize)");
  cmd->add_flag("--memory", args->memory,
                "record device, pinned and managed memory allocations and releases");
  cmd->add_flag(
      "--kernel-ranges", args->kernel_ranges,
      "with --engine RangeProfiler: counters per kernel launch inside the outermost scope "
      "instead of per scope");
  cmd->add_flag("--kernel-blocks", args->kernel_blocks,
                "kernel events as compressed column blocks (about half the .zst bytes; gpufl cat "
                "expands them; docs/log-format.md)");
  cmd->add_flag("-q,--quiet", args->quiet, "no summary after the program ends");
  cmd->add_flag("--no-nvtx", args->no_nvtx,
                "do not turn NVTX ranges (torch.cuda.nvtx.range, ...) into scopes");
  cmd->add_option("command", args->command, "the program and its arguments, after --")->required();
  cmd->prefix_command(false);
  cmd->callback([args, &ctx] { ctx.exit_code = runTraced(*args, ctx); });
}

}  // namespace gpufl::cli
