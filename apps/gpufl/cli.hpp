// The `gpufl` command line: one CLI11 app, one file per subcommand. runCli() is main() without the
// process, so tests drive it in-process with their own streams.
//
// Adding a subcommand (e.g. `gpufl trace`): write cmd_trace.cpp with `void
// addTraceCommand(CLI::App&, CliContext&)`, declare it below, list it in kCommands (cli.cpp) and
// add the file to CMakeLists.txt.
#pragma once

#include <cstddef>
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
inline constexpr int kExitUsage = 2;       // bad arguments
inline constexpr int kExitRegression = 3;  // `gpufl diff`: a real regression past the threshold
// `gpufl diff`: a side lost records to damage (corrupt lines or kernel_blocks, missing segments,
// fewer records than session_end counts), so the gate cannot judge; before kExitRegression.
inline constexpr int kExitDamaged = 4;

struct CliContext {
  std::ostream& out;
  std::ostream& err;
  std::FILE* out_file =
      stdout;  // for writers that need a FILE* (`gpufl cat`); same destination as `out`
  int exit_code = kExitOk;       // set by the subcommand's callback
  bool err_is_terminal = false;  // stderr is a terminal: long work may show progress there
  bool out_is_terminal = false;  // stdout is a terminal: text takes its width (textWidth)
  bool wide = false;             // --wide: text output at no width limit
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
void addAgentCommand(CLI::App& app, CliContext& ctx);
void addDiffCommand(CLI::App& app, CliContext& ctx);
void addMonitorCommand(CLI::App& app, CliContext& ctx);
void addExportCommand(CLI::App& app, CliContext& ctx);
void addDoctorCommand(CLI::App& app, CliContext& ctx);
void addDumpCommand(CLI::App& app, CliContext& ctx);

// Parses and runs; returns the process exit code. args[0] is the program name.
int runCli(const std::vector<std::string>& args, CliContext& ctx);

// "<command>: <message>" on `err`, each line of the message made terminal-safe (it may quote names
// from the log or the file system) and the lines after the first kept as lines.
void printError(std::ostream& err, const std::string& command, const std::string& message);

// The command closest to a mistyped word ("repot" -> "report"), or "" when none is close.
std::string nearestCommand(const std::string& word, const std::vector<std::string>& commands);

// The width text output takes (core/output_width): unlimited with --wide, else COLUMNS, else the
// terminal's width when stdout is one, else 80.
std::size_t textWidth(const CliContext& ctx);

// Reader warnings ("file:line: message", or a message alone) with those about a line of a file
// first: they say what is wrong with the log's content; absent channels and session lookups after.
std::vector<std::string> damageFirst(std::vector<std::string> warnings);

// Which files a prefix is looked up as, for "nothing readable" messages.
std::string prefixFilesDescription(const std::string& prefix);

}  // namespace gpufl::cli
