#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <ctime>

#include "gpufl/version.hpp"

namespace gpufl::cli {
namespace {

// Every subcommand, in the order `gpufl --help` lists them.
const AddCommand kCommands[] = {
    addReportCommand,
    addCatCommand,
    addSessionsCommand,
    addExportCommand,
    addOccupancyCommand,
    addTraceCommand,
};

}  // namespace

int runCli(const std::vector<std::string>& args, CliContext& ctx) {
  CLI::App app{"GPU Flight: a flight recorder for CUDA programs", "gpufl"};
  app.set_version_flag("--version", std::string("gpufl ") + gpufl::kVersion);
  app.require_subcommand(0, 1);
  for (AddCommand add : kCommands) add(app, ctx);

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
    return kExitUsage;
  }
  if (app.get_subcommands().empty()) {
    ctx.out << app.help();
    return kExitOk;
  }
  return ctx.exit_code;
}

std::string prefixFilesDescription(const std::string& prefix) {
  return prefix + ".device.log, " + prefix + ".scope.log, " + prefix +
         ".system.log and their numbered segments (" + prefix + ".<channel>.NNNNNN.log[.zst])";
}

}  // namespace gpufl::cli
