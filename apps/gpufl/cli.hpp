// The `gpufl` command line: one CLI11 app, one file per subcommand. runCli() is main() without the
// process, so tests drive it in-process with their own streams.
//
// Adding a subcommand (e.g. `gpufl trace`): write cmd_trace.cpp with `void
// addTraceCommand(CLI::App&, CliContext&)`, declare it below, list it in kCommands (cli.cpp) and
// add the file to CMakeLists.txt.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpufl::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure =
    1;  // the command ran but found nothing usable (no readable log, ...)
inline constexpr int kExitUsage = 2;  // bad arguments

struct CliContext {
  std::ostream& out;
  std::ostream& err;
  std::FILE* out_file =
      stdout;  // for writers that need a FILE* (`gpufl cat`); same destination as `out`
  int exit_code = kExitOk;  // set by the subcommand's callback
  // `gpufl trace`: the program died of this signal (SIGINT, SIGTERM, SIGHUP), which main() raises
  // on itself after everything is printed, so a calling shell sees the signal and stops too.
  int reraise_signal = 0;
};

// Registers one subcommand on `app`; its callback runs during parsing and sets ctx.exit_code.
// Argument errors found by the callback are thrown as CLI::ValidationError naming the flag (runCli
// turns them into kExitUsage).
using AddCommand = void (*)(CLI::App& app, CliContext& ctx);

void addOccupancyCommand(CLI::App& app, CliContext& ctx);
void addReportCommand(CLI::App& app, CliContext& ctx);
void addCatCommand(CLI::App& app, CliContext& ctx);
void addSessionsCommand(CLI::App& app, CliContext& ctx);
void addTraceCommand(CLI::App& app, CliContext& ctx);
void addExportCommand(CLI::App& app, CliContext& ctx);

// Parses and runs; returns the process exit code. args[0] is the program name.
int runCli(const std::vector<std::string>& args, CliContext& ctx);

// Which files a prefix is looked up as, for "nothing readable" messages.
std::string prefixFilesDescription(const std::string& prefix);

}  // namespace gpufl::cli
