// `gpufl sessions PREFIX`: the sessions recorded under a prefix, oldest first.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "cli.hpp"
#include "core/clock.hpp"
#include "core/terminal_text.hpp"
#include "log/reader.hpp"
#include "prefix_arg.hpp"

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
  // One row per session, whatever the lengths (a fixed buffer would cut a long name's newline off).
  // Names come from the log: escaped, so that they cannot act on the terminal or break the table.
  auto row = [&](std::string_view sid, std::string_view id, std::string_view app,
                 std::string_view start) {
    auto pad = [](std::string s, size_t width) {
      return s.size() < width ? s.append(width - s.size(), ' ') : s;
    };
    ctx.out << pad(terminalSafe(sid), 8) << "  " << pad(terminalSafe(id), 36) << "  "
            << pad(terminalSafe(app), 24) << "  " << start << "\n";
  };
  // "id" is what --session takes (any unique start of the full id works too).
  row("id", "full session id", "app", "started");
  for (const log::SessionListing& s : sessions)
    row(s.sid, s.session_id, s.app,
        s.start_unix_ns > 0 ? core::utcText(s.start_unix_ns) : std::string("-"));
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
