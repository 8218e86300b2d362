// `gpufl sessions PREFIX`: the sessions recorded under a prefix, oldest first.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli.hpp"
#include "core/clock.hpp"
#include "core/terminal_text.hpp"
#include "log/reader.hpp"
#include "prefix_arg.hpp"
#include "report/text/text_table.hpp"

namespace gpufl::cli {
namespace {

struct SessionsArgs {
  std::string prefix;
};

void runSessions(const SessionsArgs& a, CliContext& ctx) {
  const PrefixArg p = resolvePrefix(a.prefix);
  if (!p.error.empty()) {
    printError(ctx.err, "gpufl sessions", p.error);
    ctx.exit_code = kExitFailure;
    return;
  }
  std::vector<log::SessionListing> sessions = log::listSessions(p.prefix);
  if (sessions.empty()) {
    printError(ctx.err, "gpufl sessions", missingLogsMessage(p.prefix));
    ctx.exit_code = kExitFailure;
    return;
  }
  // One row per session, fitted to the output width (the full id is the first to go; the short id
  // is what --session takes, as does any unique start of the full one). Names come from the log:
  // escaped, so that they cannot act on the terminal or break the table.
  report::TextTable table({{"id", false, 0}, {"started", false, 0}, {"full session id", false, 1}},
                          "app", false);
  for (const log::SessionListing& s : sessions)
    table.addRow({terminalSafe(s.sid),
                  s.start_unix_ns > 0 ? core::utcText(s.start_unix_ns) : std::string("-"),
                  terminalSafe(s.session_id)},
                 terminalSafe(s.app));
  for (const std::string& line : table.render(textWidth(ctx), 0)) ctx.out << line << "\n";
  ctx.exit_code = kExitOk;
}

}  // namespace

void addSessionsCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<SessionsArgs>();
  CLI::App* cmd = app.add_subcommand("sessions", "List the sessions recorded under a log prefix");
  cmd->add_option("prefix", args->prefix, "Log prefix (e.g. ./smoke_test)")->required();
  cmd->callback([args, &ctx] { runSessions(*args, ctx); });
}

}  // namespace gpufl::cli
