// `gpufl report PREFIX... [--top N] [--session ID] [--json]`: the text (or JSON) report of one
// session of a log; with several prefixes, the ranks of one job compared (report/ranks.hpp).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "core/terminal_text.hpp"
#include "report/ranks.hpp"
#include "report/report.hpp"

namespace gpufl::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> prefixes;
  int top = 10;
  std::string session;
  bool json = false;
};

void runReport(const ReportArgs& a, CliContext& ctx) {
  if (a.top < 1)
    throw CLI::ValidationError("--top", "must be at least 1, got " + std::to_string(a.top));
  report::ReportOptions options;
  options.top_n = a.top;
  if (a.prefixes.size() > 1 && a.json)
    throw CLI::ValidationError("--json",
                               "is for one prefix; several give the text comparison of ranks");
  const std::string& prefix = a.prefixes.front();
  report::ReportOutput r = a.prefixes.size() > 1
                               ? report::reportFromPrefixes(a.prefixes, a.session, options)
                               : report::reportFromPrefix(prefix, a.session, options, a.json);
  // "file:line: message" (no file: the message alone); messages may quote the log's names.
  for (const std::string& w : r.warnings)
    ctx.err << terminalSafe(w.starts_with(": ") ? w.substr(2) : w) << "\n";
  if (!r.ok) {
    ctx.err << "gpufl report: nothing readable under '" << prefix << "'";
    if (!r.error.empty()) ctx.err << ": " << r.error;
    ctx.err << "\n";
    if (r.error.find(".device.log") == std::string::npos)
      ctx.err << "  looked for " << prefixFilesDescription(prefix) << "\n";
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
         "Log prefix (the log_path given to gpufl::init, e.g. ./smoke_test); several (the ranks "
         "of one job) are compared side by side")
      ->required();
  cmd->add_option("--top", args->top, "Kernels and scopes to list (default 10)");
  cmd->add_option("--session", args->session, "Session id or a prefix of it (default: the latest)");
  cmd->add_flag("--json", args->json, "Print the report as JSON");
  cmd->callback([args, &ctx] { runReport(*args, ctx); });
}

}  // namespace gpufl::cli
