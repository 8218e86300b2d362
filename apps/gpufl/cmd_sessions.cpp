// `gpufl sessions PREFIX`: the sessions recorded under a prefix, oldest first.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "cli.hpp"
#if GPUFL_CLI_HAVE_READER
#include "log/reader.hpp"
#endif

namespace gpufl::cli {
namespace {

struct SessionsArgs {
  std::string prefix;
};

void runSessions(const SessionsArgs& a, CliContext& ctx) {
#if GPUFL_CLI_HAVE_READER
  std::vector<log::SessionListing> sessions = log::listSessions(a.prefix);
  if (sessions.empty()) {
    ctx.err << "gpufl sessions: no sessions under '" << a.prefix << "'\n  looked for "
            << prefixFilesDescription(a.prefix) << "\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-8s  %-36s  %-24s  %s\n", "sid", "session_id", "app", "start");
  ctx.out << line;
  for (const log::SessionListing& s : sessions) {
    std::string start = s.start_unix_ns > 0 ? formatUtc(s.start_unix_ns) : std::string("-");
    std::snprintf(line, sizeof line, "%-8s  %-36s  %-24s  %s\n", s.sid.c_str(),
                  s.session_id.c_str(), s.app.c_str(), start.c_str());
    ctx.out << line;
  }
  ctx.exit_code = kExitOk;
#else
  (void)a;
  ctx.err << "gpufl sessions: this build has no log reader\n";
  ctx.exit_code = kExitFailure;
#endif
}

}  // namespace

void addSessionsCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<SessionsArgs>();
  CLI::App* cmd = app.add_subcommand("sessions", "List the sessions recorded under a log prefix");
  cmd->add_option("prefix", args->prefix, "Log prefix (e.g. ./smoke_test)")->required();
  cmd->callback([args, &ctx] { runSessions(*args, ctx); });
}

}  // namespace gpufl::cli
