// `gpufl report PREFIX... [--top N] [--session ID] [--json] [--verbose]`: the text (or JSON) report
// of one session of a log; with several prefixes, the ranks of one job compared (report/ranks.hpp).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "core/output_width.hpp"
#include "core/terminal_text.hpp"
#include "prefix_arg.hpp"
#include "progress.hpp"
#include "report/ranks/ranks.hpp"
#include "report/report.hpp"

namespace gpufl::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> prefixes;
  int top = 10;
  std::string session;
  bool json = false;
  bool verbose = false;
  bool wide = false;
};

void runReport(const ReportArgs& a, CliContext& ctx) {
  if (a.top < 1)
    throw CLI::ValidationError("--top", "must be at least 1, got " + std::to_string(a.top));
  if (a.prefixes.size() > 1 && a.json)
    throw CLI::ValidationError("--json",
                               "is for one prefix; several give the text comparison of ranks");
  report::ReportOptions options;
  options.top_n = a.top;
  options.verbose = a.verbose;
  options.wide_names = a.wide;
  options.width = a.wide ? kUnlimitedWidth : textWidth(ctx);
  // Each argument may be a prefix, a channel file or a directory holding one prefix's logs.
  std::vector<std::string> prefixes;
  for (const std::string& arg : a.prefixes) {
    const PrefixArg p = resolvePrefix(arg);
    if (!p.error.empty()) {
      printError(ctx.err, "gpufl report", p.error);
      ctx.exit_code = kExitFailure;
      return;
    }
    prefixes.push_back(p.prefix);
  }
  const std::string& prefix = prefixes.front();
  Progress progress(ctx.err, ctx.err_is_terminal, "gpufl report: reading " + prefix);
  options.on_progress = [&](uint64_t records) { progress.update(records); };
  report::ReportOutput r = prefixes.size() > 1
                               ? report::reportFromPrefixes(prefixes, a.session, options)
                               : report::reportFromPrefix(prefix, a.session, options, a.json);
  progress.done();  // before any message or the report itself
  // "file:line: message" (no file: the message alone); messages may quote the log's names.
  for (const std::string& w : damageFirst(r.warnings))
    ctx.err << terminalSafe(w.starts_with(": ") ? w.substr(2) : w) << "\n";
  if (!r.ok) {
    printError(ctx.err, "gpufl report", r.no_files ? missingLogsMessage(prefix) : r.error);
    ctx.exit_code = kExitFailure;
    return;
  }
  ctx.out << r.text;
  if (!r.text.empty() && r.text.back() != '\n') ctx.out << "\n";
  ctx.exit_code = kExitOk;
}

}  // namespace

void addReportCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd =
      app.add_subcommand("report", "Text report of a recorded session: what limits each kernel");
  cmd->add_option(
         "prefix", args->prefixes,
         "Log prefix (the log_path given to gpufl::init, e.g. ./smoke_test), a channel file or a "
         "directory; several (the ranks of one job) are compared side by side")
      ->required();
  cmd->add_option("--top", args->top, "Kernels and scopes to list (default 10)");
  cmd->add_option("--session", args->session, "Session id or a prefix of it (default: the latest)");
  cmd->add_flag("--json", args->json, "Print the report as JSON");
  cmd->add_flag("-v,--verbose", args->verbose,
                "Collection Notes in full: every feature note, drops and gpufl's costs by thread");
  cmd->add_flag("--wide", args->wide, "Kernel names whole in the kernel tables and cards");
  cmd->callback([args, &ctx] { runReport(*args, ctx); });
}

}  // namespace gpufl::cli
