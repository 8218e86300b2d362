// `gpufl cat PREFIX [--session ID] [--channel device|scope|system]`: one session of a log as plain
// NDJSON on stdout, all segments (plain or zstd) in order, with kernel_event times and correlation
// ids absolute.
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "cli.hpp"
#include "core/event_visitor.hpp"
#include "core/terminal_text.hpp"
#include "log/log_writer.hpp"
#include "log/reader.hpp"

namespace gpufl::cli {
namespace {

struct CatArgs {
  std::string prefix;
  std::string session;
  std::string channel;
};

std::optional<Channel> parseChannel(const std::string& name) {
  for (Channel c : {Channel::Device, Channel::Scope, Channel::System})
    if (name == channelName(c)) return c;
  return std::nullopt;
}

void runCat(const CatArgs& a, CliContext& ctx) {
  std::optional<Channel> only;
  if (!a.channel.empty()) {
    only = parseChannel(a.channel);
    if (!only)
      throw CLI::ValidationError("--channel",
                                 "must be device, scope or system, got '" + a.channel + "'");
  }
  ctx.out.flush();  // the writer writes to the FILE* behind `out`
  // The writer knows each record's channel: it leaves out the others' (CatKeepsEveryRecordType checks
  // that no record kind is lost; a hand-written filter here once dropped device, sync and memory).
  auto writer = log::LogWriter::toStream(ctx.out_file, only);
  log::ReadOptions options;
  options.session = a.session;
  log::ReadResult r = log::readPrefix(a.prefix, options, *writer);
  writer->close();
  std::fflush(ctx.out_file);
  for (const log::ReadWarning& w : r.warnings)
    ctx.err << terminalSafe(log::formatWarning(w)) << "\n";
  if (r.warning_count > r.warnings.size())
    ctx.err << "... and " << (r.warning_count - r.warnings.size()) << " more warnings\n";
  if (!r.found_files || !r.any_readable) {
    ctx.err << "gpufl cat: " << (r.found_files ? "no readable records" : "no log files")
            << " under '" << a.prefix << "'";
    if (!a.session.empty()) ctx.err << " for session '" << a.session << "'";
    ctx.err << "\n  looked for " << prefixFilesDescription(a.prefix) << "\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  ctx.exit_code = kExitOk;
}

}  // namespace

void addCatCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<CatArgs>();
  CLI::App* cmd = app.add_subcommand("cat", "Print one session as NDJSON, kernel times absolute");
  cmd->add_option("prefix", args->prefix, "Log prefix (e.g. ./smoke_test)")->required();
  cmd->add_option("--session", args->session, "Session id or a prefix of it (default: the latest)");
  cmd->add_option("--channel", args->channel, "Only this channel: device, scope or system");
  cmd->callback([args, &ctx] { runCat(*args, ctx); });
}

}  // namespace gpufl::cli
