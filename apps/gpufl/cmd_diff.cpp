// `gpufl diff BASE [NEW] [--base-session ID] [--new-session ID] [--threshold 5%] [--json]`: what
// changed between two sessions (two prefixes, or two sessions under one prefix), judged against the
// noise over launches; exits 3 when a real regression passes the threshold, so CI can gate on it,
// and 4 when either side lost records to damage (the gate cannot judge what it could not read).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli.hpp"
#include "core/terminal_text.hpp"
#include "report/diff/diff_stats.hpp"

namespace gpufl::cli {
namespace {

struct DiffArgs {
  std::string base, next;
  std::string base_session, new_session;
  std::string threshold = "5%";
  double alpha = 0.01;
  size_t min_samples = 5;
  bool json = false;
};

// "5%", "5", "0.05%" -> fraction; throws a ValidationError naming the flag.
double parseThreshold(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(t, &used);
  } catch (...) {
    used = 0;
  }
  if (t.empty() || used != t.size() || !(v >= 0) || v > 1000)
    throw CLI::ValidationError("--threshold",
                               "expected a percentage such as 5%, got '" + text + "'");
  return v / 100;
}

void runDiff(const DiffArgs& a, CliContext& ctx) {
  report::DiffOptions o;
  o.threshold = parseThreshold(a.threshold);
  if (!(a.alpha > 0 && a.alpha < 1)) throw CLI::ValidationError("--alpha", "must be in (0, 1)");
  o.alpha = a.alpha;
  o.min_samples = std::max<size_t>(a.min_samples, 2);
  const std::string next = a.next.empty() ? a.base : a.next;
  if (a.next.empty() && (a.base_session.empty() || a.new_session.empty()))
    throw CLI::ValidationError(
        "NEW",
        "give a second prefix, or two sessions of one prefix with --base-session "
        "and --new-session");
  report::DiffSide sides[2];
  const std::string* prefixes[2] = {&a.base, &next};
  const std::string* sessions[2] = {&a.base_session, &a.new_session};
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> warnings;
    std::string error;
    const bool ok = report::loadDiffSide(*prefixes[i], *sessions[i], sides[i], &warnings, &error);
    for (const std::string& w : warnings)
      ctx.err << terminalSafe(w.starts_with(": ") ? w.substr(2) : w) << "\n";
    if (!ok) {
      ctx.err << "gpufl diff: " << (i == 0 ? "BASE" : "NEW") << ": " << terminalSafe(error) << "\n";
      ctx.exit_code = kExitFailure;
      return;
    }
  }
  const report::SessionDiff d = report::diffSessions(sides[0], sides[1], o);
  if (a.json) {
    ctx.out << report::renderDiffJson(d);
  } else {
    // Names come from the logs: each line made safe for a terminal on its own (terminalSafe escapes
    // newlines).
    const std::string text = report::renderDiffText(d, textWidth(ctx));
    for (size_t at = 0; at < text.size();) {
      const size_t eol = text.find('\n', at);
      ctx.out << terminalSafe(text.substr(at, eol - at)) << "\n";
      at = eol == std::string::npos ? text.size() : eol + 1;
    }
  }
  // A damaged side is named on stderr as well, where a CI log shows it beside the exit status.
  if (!d.base_damage.empty())
    ctx.err << "gpufl diff: BASE lost records to damage: " << terminalSafe(d.base_damage) << "\n";
  if (!d.new_damage.empty())
    ctx.err << "gpufl diff: NEW lost records to damage: " << terminalSafe(d.new_damage) << "\n";
  ctx.exit_code = d.damaged() ? kExitDamaged : d.regressions > 0 ? kExitRegression : kExitOk;
}

}  // namespace

void addDiffCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff",
                                     "Compare two sessions: per kernel and scope, changes the "
                                     "noise says are real; gate CI on them");
  cmd->add_option("base", args->base, "Log prefix of the base session")->required();
  cmd->add_option("new", args->next,
                  "Log prefix of the new session (default: BASE, with two --*-session)");
  cmd->add_option("--base-session", args->base_session,
                  "Session id (or a prefix of it) of BASE; default latest");
  cmd->add_option("--new-session", args->new_session,
                  "Session id (or a prefix of it) of NEW; default latest");
  cmd->add_option("--threshold", args->threshold,
                  "A real regression slower than this fails (exit 3); default 5%. A side that "
                  "lost records to damage fails with exit 4");
  cmd->add_option("--alpha", args->alpha,
                  "False alarm rate of the rank tests over all groups; default 0.01");
  cmd->add_option("--min-samples", args->min_samples,
                  "Fewer launches on a side are too few to judge (never fail); default 5");
  cmd->add_flag("--json", args->json, "Print the comparison as JSON");
  cmd->callback([args, &ctx] { runDiff(*args, ctx); });
}

}  // namespace gpufl::cli
