// `gpufl agent --to URL PREFIX_OR_DIR...`: ships the logs under prefixes or directories to an HTTP
// receiver (src/agent, docs/fleet.md). The token comes from an environment variable or a file,
// never from the command line, where `ps` would show it to every user of the host.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "agent/agent.hpp"
#include "cli.hpp"
#include "prefix_arg.hpp"

namespace gpufl::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void onStopSignal(int) {
  g_stop = true;
}

struct AgentArgs {
  agent::AgentOptions opts;
  std::string token_env = "GPUFL_AGENT_TOKEN";
  std::string token_file;
};

std::string defaultStateDir() {
  if (const char* s = std::getenv("XDG_STATE_HOME"); s != nullptr && *s != '\0')
    return std::string(s) + "/gpufl/agent";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.local/state/gpufl/agent";
  return ".gpufl-agent";
}

// The token, from the file when one is named, else from the environment; trailing newlines dropped.
bool readToken(const AgentArgs& a, std::string* token, std::string* error) {
  if (!a.token_file.empty()) {
    std::ifstream in(a.token_file, std::ios::binary);
    if (!in) {
      *error = "--token-file " + a.token_file + ": cannot be read";
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    *token = ss.str();
  } else if (const char* t = std::getenv(a.token_env.c_str()); t != nullptr) {
    *token = t;
  }
  while (!token->empty() && (token->back() == '\n' || token->back() == '\r')) token->pop_back();
  return true;
}

// A prefix with at least one channel file (segments included).
bool hasLogs(const std::string& prefix) {
  const std::filesystem::path p(prefix);
  const std::vector<std::string> beside = prefixesIn(p.parent_path().string());
  return std::find(beside.begin(), beside.end(), (p.parent_path() / p.filename()).string()) !=
         beside.end();
}

void runAgentCommand(AgentArgs& a, CliContext& ctx) {
  std::string error;
  if (!readToken(a, &a.opts.token, &error)) {
    ctx.err << "gpufl agent: " << error << "\n";
    ctx.exit_code = kExitUsage;
    return;
  }
  if (a.opts.listen == "off") a.opts.listen.clear();
  if (a.opts.state_dir.empty()) a.opts.state_dir = defaultStateDir();
  if (std::string why = agent::validateOptions(a.opts); !why.empty()) {
    ctx.err << "gpufl agent: " << why << "\n";
    ctx.exit_code = kExitUsage;
    return;
  }
  // An input that is neither a directory nor a prefix with logs is said at once: a follower waits
  // for it to appear, a one-shot upload (--exit-when-drained) fails instead of shipping nothing.
  bool missing = false;
  for (const std::string& input : a.opts.inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec) || hasLogs(input)) continue;
    missing = true;
    printError(ctx.err, "gpufl agent",
               missingLogsMessage(input) + "\n  and no directory '" + input + "'" +
                   (a.opts.exit_when_drained ? "" : ": waiting for it to appear"));
  }
  if (missing && a.opts.exit_when_drained) {
    ctx.exit_code = kExitFailure;
    return;
  }
  g_stop = false;
  struct sigaction sa {};
  sa.sa_handler = onStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a receiver closing its socket must not kill the agent
  ctx.exit_code = agent::runAgent(a.opts, g_stop);
}

}  // namespace

void addAgentCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<AgentArgs>();
  agent::AgentOptions& o = args->opts;
  CLI::App* cmd = app.add_subcommand("agent",
                                     "Follow log prefixes or directories and ship their records to "
                                     "an HTTP receiver or an OpenTelemetry collector");
  cmd->add_option("inputs", o.inputs, "Log prefixes (./run) or directories (searched recursively)")
      ->required();
  cmd->add_option("--to", o.to, "Receiver URL: NDJSON batches are POSTed there, gzip-compressed");
  cmd->add_option(
      "--otlp", o.otlp,
      "OpenTelemetry collector (OTLP/HTTP protobuf), e.g. http://127.0.0.1:4318: each finished "
      "session's scopes and kernels as spans (POST /v1/traces), its samples as metrics "
      "(/v1/metrics)");
  cmd->add_option("--token-env", args->token_env, "Environment variable holding the bearer token")
      ->capture_default_str();
  cmd->add_option("--token-file", args->token_file,
                  "File holding the bearer token (instead of --token-env)");
  cmd->add_option("--ca-file", o.ca_file, "CA bundle for https receivers (default: the system's)");
  cmd->add_option("--state-dir", o.state_dir,
                  "Checkpoint and spool directory (default: $XDG_STATE_HOME/gpufl/agent or "
                  "~/.local/state/gpufl/agent)");
  cmd->add_option("--listen", o.listen, "HOST:PORT for /metrics and /healthz, or 'off'")
      ->capture_default_str();
  cmd->add_option("--poll-ms", o.poll_ms, "Rescan period in ms (inotify wakes it sooner)")
      ->capture_default_str()
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--batch-bytes", o.batch_bytes, "Uncompressed bytes per batch, at most")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  cmd->add_option("--spool-max-bytes", o.spool_max_bytes, "Spool size at which reading pauses")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  cmd->add_option("--timeout-ms", o.timeout_ms, "Connect/read/write timeout of one POST")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  cmd->add_option("--backoff-min-ms", o.backoff_min_ms, "First retry delay")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  cmd->add_option("--backoff-max-ms", o.backoff_max_ms, "Longest retry delay")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  cmd->add_flag("--allow-insecure", o.allow_insecure,
                "Send the bearer token over plain http:// to a host that is not loopback (it "
                "crosses the network in clear; refused without this flag)");
  cmd->add_flag("--exit-when-drained", o.exit_when_drained,
                "Exit once everything on disk went through (benchmarks, one-shot uploads)");
  cmd->callback([args, &ctx] { runAgentCommand(*args, ctx); });
}

}  // namespace gpufl::cli
