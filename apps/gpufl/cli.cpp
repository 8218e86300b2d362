#include "cli.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "core/output_width.hpp"
#include "core/terminal_text.hpp"
#include "fit_text.hpp"
#include "gpufl/version.hpp"

namespace gpufl::cli {
namespace {

// Every subcommand, in the order `gpufl --help` lists them.
const AddCommand kCommands[] = {
    addReportCommand,    addCatCommand,    addSessionsCommand, addExportCommand,
    addOccupancyCommand, addTraceCommand,  addAgentCommand,    addDiffCommand,
    addMonitorCommand,   addDoctorCommand, addDumpCommand,
};

// Edit distance (insertions, deletions, substitutions, adjacent swaps), for "did you mean".
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> commandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// "did you mean '--top'?" for each --word the command line did not take: its command's options
// and the whole command line's are the candidates.
void suggestFlag(CLI::App& app, const std::vector<std::string>& args, std::ostream& err) {
  std::vector<std::string> flags;
  auto addOptions = [&](const CLI::App& a) {
    for (const CLI::Option* o : a.get_options())
      for (const std::string& n : o->get_lnames()) flags.push_back("--" + n);
  };
  addOptions(app);
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : app.get_subcommands({}))
    if (args.size() >= 2 && s->get_name() == args[1]) sub = s;
  if (sub != nullptr) addOptions(*sub);
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string word = args[i].substr(0, args[i].find('='));
    if (word == "--") break;  // what follows is a program's own arguments (`gpufl trace --`)
    if (!word.starts_with("--") || std::find(flags.begin(), flags.end(), word) != flags.end())
      continue;
    if (const std::string near = nearestCommand(word, flags); !near.empty())
      err << "gpufl: " << terminalSafe(word) << ": did you mean '" << near << "'?\n";
  }
}

}  // namespace

std::string nearestCommand(const std::string& word, const std::vector<std::string>& commands) {
  std::string best;
  size_t best_distance = 0;
  for (const std::string& c : commands) {
    size_t d = editDistance(word, c);
    if (best.empty() || d < best_distance) best = c, best_distance = d;
  }
  // Close enough to be a typo: at most 2 edits, and fewer than half the word.
  return !best.empty() && best_distance <= 2 && best_distance * 2 < std::max<size_t>(word.size(), 2)
             ? best
             : "";
}

int runCli(const std::vector<std::string>& args, CliContext& ctx) {
  CLI::App app{"GPU Flight: a flight recorder for CUDA programs", "gpufl"};
  app.set_version_flag("-V,--version", std::string("gpufl ") + gpufl::kVersion);
  app.require_subcommand(0, 1);
  // Options of the whole command line are accepted after the subcommand's too.
  app.fallthrough();
  // --wide is known before parsing: the help is made before it (and `gpufl help` is not parsed).
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i) ctx.wide |= args[i] == "--wide";
  // Help fitted to the output width; the subcommands added below inherit the formatter.
  app.formatter(helpFormatter(textWidth(ctx)));
  app.add_flag(
      "--wide", ctx.wide,
      "Text at any width: every column, names whole (default: COLUMNS, the terminal, or 80)");
  for (AddCommand add : kCommands) add(app, ctx);
  app.footer("Run 'gpufl help COMMAND' or 'gpufl COMMAND --help' for a command's options.");

  // `gpufl help [COMMAND]`, and a word that is no command: said before CLI11 would call it an
  // unexpected argument.
  if (args.size() >= 2 && !args[1].empty() && args[1][0] != '-') {
    const std::vector<std::string> names = commandNames(app);
    const bool known = std::find(names.begin(), names.end(), args[1]) != names.end();
    if (args[1] == "help") {
      if (args.size() >= 3) {
        for (CLI::App* sub : app.get_subcommands({}))
          if (sub->get_name() == args[2]) {
            ctx.out << sub->help();
            return kExitOk;
          }
        ctx.err << "gpufl help: no command '" << args[2] << "'\n";
        return kExitUsage;
      }
      ctx.out << app.help();
      return kExitOk;
    }
    if (!known) {
      ctx.err << "gpufl: '" << args[1] << "' is not a command";
      if (std::string near = nearestCommand(args[1], names); !near.empty())
        ctx.err << "; did you mean 'gpufl " << near << "'?";
      ctx.err << "\n  commands:";
      for (const std::string& n : names) ctx.err << " " << n;
      ctx.err << " (gpufl help)\n";
      return kExitUsage;
    }
  }

  // CLI11 wants argv without the program name, last argument first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  if (!reversed.empty()) reversed.pop_back();
  ctx.exit_code = kExitOk;
  try {
    app.parse(reversed);
  } catch (const CLI::Success& e) {  // --help, --version
    app.exit(e, ctx.out, ctx.err);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    app.exit(e, ctx.out, ctx.err);
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) suggestFlag(app, args, ctx.err);
    return kExitUsage;
  }
  if (app.get_subcommands().empty()) {
    ctx.out << app.help();
    return kExitOk;
  }
  return ctx.exit_code;
}

void printError(std::ostream& err, const std::string& command, const std::string& message) {
  err << command << ": ";
  size_t begin = 0;
  while (true) {
    size_t end = message.find('\n', begin);
    err << terminalSafe(message.substr(begin, end == std::string::npos ? end : end - begin))
        << "\n";
    if (end == std::string::npos) break;
    begin = end + 1;
  }
}

std::vector<std::string> damageFirst(std::vector<std::string> warnings) {
  auto aboutALine = [](const std::string& w) {
    const size_t colon = w.find(": ");
    if (colon == std::string::npos || colon == 0) return false;
    const size_t number = w.rfind(':', colon - 1);
    if (number == std::string::npos || number + 1 == colon) return false;
    return std::all_of(w.begin() + static_cast<long>(number) + 1,
                       w.begin() + static_cast<long>(colon),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  std::stable_partition(warnings.begin(), warnings.end(), aboutALine);
  return warnings;
}

std::size_t textWidth(const CliContext& ctx) {
  return outputWidthFrom(ctx.wide, std::getenv("COLUMNS"),
                         ctx.out_is_terminal ? terminalColumns(STDOUT_FILENO) : std::nullopt);
}

std::string prefixFilesDescription(const std::string& prefix) {
  return prefix + ".device.log, " + prefix + ".scope.log, " + prefix +
         ".system.log and their numbered segments (" + prefix + ".<channel>.NNNNNN.log[.zst])";
}

}  // namespace gpufl::cli
