// `gpufl monitor`: the per-host metrics daemon (src/monitor). Runs until SIGTERM or SIGINT, then
// stops serving, writes session_end and closes the log, and exits 0.
#include <signal.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include "cli.hpp"
#include "monitor/monitor.hpp"

namespace gpufl::cli {
namespace {

constexpr const char* kTokenEnv = "GPUFL_MONITOR_TOKEN";

struct MonitorArgs {
  int interval_ms = 1000;
  std::string listen = "127.0.0.1:9464";
  std::string prefix;
  int rotate_mb = 64;
  std::string token_file;
  bool no_pcie = false;
  std::string nvml_script;
  std::string nvml_library = nvml::kLibraryName;
  std::vector<std::string> apps;
};

// The token comes from a file or the environment, never from argv (which `ps` shows to everyone).
bool readToken(const MonitorArgs& a, std::string* token, std::string* error) {
  if (!a.token_file.empty()) {
    std::ifstream in(a.token_file);
    if (!in) {
      *error = "--token-file " + a.token_file + ": cannot be read";
      return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    *token = text.str();
    while (!token->empty() && std::isspace(static_cast<unsigned char>(token->back())))
      token->pop_back();
    if (token->empty()) {
      *error = "--token-file " + a.token_file + ": the file is empty";
      return false;
    }
    return true;
  }
  if (const char* env = std::getenv(kTokenEnv)) *token = env;
  return true;
}

void runMonitor(const MonitorArgs& a, CliContext& ctx) {
  monitor::MonitorOptions o;
  o.interval = std::chrono::milliseconds(a.interval_ms);
  o.listen = a.listen;
  o.prefix = a.prefix;
  o.rotate_bytes = static_cast<uint64_t>(a.rotate_mb) << 20;
  o.pcie = !a.no_pcie;
  o.nvml_script = a.nvml_script;
  o.nvml_library = a.nvml_library;
  o.apps_dirs = a.apps;
  std::string error;
  if (!readToken(a, &o.token, &error)) {
    ctx.err << "gpufl monitor: " << error << "\n";
    ctx.exit_code = kExitUsage;
    return;
  }
  ::umask(::umask(027) | 027);  // whatever it writes: 0640 at most, less if the umask says so

  // SIGTERM and SIGINT are blocked before any thread starts (threads inherit the mask), so that
  // only sigwait() below receives them.
  sigset_t stop_signals, old_mask;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);

  std::mutex say_mutex;
  auto say = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(say_mutex);
    ctx.err << "gpufl monitor: " << line << std::endl;
  };
  std::unique_ptr<monitor::Monitor> m = monitor::Monitor::start(o, say, &error);
  if (!m) {
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    ctx.err << "gpufl monitor: " << error << "\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  int sig = 0;
  while (sigwait(&stop_signals, &sig) != 0) {
  }
  say(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", stopping");
  m->stop();
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ctx.exit_code = kExitOk;
}

}  // namespace

void addMonitorCommand(CLI::App& app, CliContext& ctx) {
  auto a = std::make_shared<MonitorArgs>();
  CLI::App* cmd = app.add_subcommand(
      "monitor", "Sample NVML and the host, serve Prometheus metrics, write a system log");
  cmd->add_option("--interval", a->interval_ms, "Sampling period in milliseconds")
      ->capture_default_str()
      ->check(CLI::Range(10, 3600000));
  cmd->add_option("--listen", a->listen,
                  "HOST:PORT of /metrics; anything but loopback needs a token (" +
                      std::string(kTokenEnv) + " or --token-file)")
      ->capture_default_str();
  cmd->add_option("--prefix", a->prefix,
                  "Write the samples to PREFIX.system.log (rotated, compressed); none when absent");
  cmd->add_option("--rotate-mb", a->rotate_mb, "Rotate the log at this size (MiB; 0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--token-file", a->token_file,
                  "File holding the bearer token /metrics requires (else $" +
                      std::string(kTokenEnv) + "; never on the command line)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--no-pcie", a->no_pcie,
                "Do not read PCIe throughput (NVML blocks ~40 ms per GPU for it, once a second)");
  cmd->add_option("--apps", a->apps,
                  "Directory where profiled programs write their logs: kernels and GPU time per "
                  "program as gpufl_app_* metrics (repeatable)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--nvml-script", a->nvml_script,
                  "Replay NVML readings from this file instead of NVML (tests; see "
                  "src/monitor/scripted_source.hpp)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--nvml-library", a->nvml_library, "NVML library to load")->capture_default_str();
  cmd->callback([a, &ctx] { runMonitor(*a, ctx); });
}

}  // namespace gpufl::cli
