// `gpufl dump PID [--reason TEXT]`: asks a running program that records with gpufl for an incident
// of kind "dump" (docs/incidents.md): what is in flight on the GPU, which host threads wait for it,
// the GPU's state. The request goes to the program's control socket (runtime/control_channel.hpp),
// a datagram with no reply: success means the program's socket took it.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <memory>
#include <string>

#include "cli.hpp"
#include "runtime/control_channel.hpp"

namespace gpufl::cli {
namespace {

// The runtime keeps this much of a reason (IncidentTrigger::reason, with its terminating NUL).
constexpr size_t kMaxReason = 159;

struct DumpArgs {
  long pid = 0;
  std::string reason = "asked by gpufl dump";
};

void runDump(const DumpArgs& a, CliContext& ctx) {
  if (a.reason.find_first_of("\r\n") != std::string::npos) {
    printError(ctx.err, "gpufl dump", "--reason must be one line");
    ctx.exit_code = kExitUsage;
    return;
  }
  if (kill(static_cast<pid_t>(a.pid), 0) != 0 && errno == ESRCH) {
    printError(ctx.err, "gpufl dump", "no process " + std::to_string(a.pid));
    ctx.exit_code = kExitFailure;
    return;
  }
  // No run dir means no program of this user opened a control socket.
  std::string why;
  const std::string dir = runtime::controlRunDir(false, &why);
  if (dir.empty() || !runtime::sendControlRequest(a.pid, "dump " + a.reason, &why, dir)) {
    printError(ctx.err, "gpufl dump",
               dir.empty()
                   ? "process " + std::to_string(a.pid) + " has no gpufl control socket: " + why
                   : why);
    ctx.exit_code = kExitFailure;
    return;
  }
  ctx.out << "gpufl dump: asked process " << a.pid
          << " for an incident record (kind dump); it goes to the program's log, and `gpufl "
             "report` shows it under Incidents\n";
  if (a.reason.size() > kMaxReason)
    ctx.err << "gpufl dump: the reason is longer than " << kMaxReason
            << " characters: the program keeps the first " << kMaxReason << "\n";
  ctx.exit_code = kExitOk;
}

}  // namespace

void addDumpCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<DumpArgs>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "Ask a running program that records with gpufl for an incident record now");
  cmd->add_option("pid", args->pid, "the program's process id")
      ->required()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--reason", args->reason,
                  "one line saying why, kept in the incident (default: asked by gpufl dump)");
  cmd->callback([args, &ctx] { runDump(*args, ctx); });
}

}  // namespace gpufl::cli
