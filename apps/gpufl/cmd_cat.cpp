// `gpufl cat PREFIX [--session ID] [--channel device|scope|system] [--by-channel]`: one session of
// a log as plain NDJSON on stdout, all segments (plain or zstd), the channels merged into one
// stream in time order (cat_merge.hpp), kernel_event times and correlation ids absolute and each
// kernel_event named after its kernel.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cat_merge.hpp"
#include "cli.hpp"
#include "core/event_visitor.hpp"
#include "core/terminal_text.hpp"
#include "log/log_writer.hpp"
#include "log/reader.hpp"
#include "prefix_arg.hpp"
#include "progress.hpp"
#include "report/report.hpp"

namespace gpufl::cli {
namespace {

struct CatArgs {
  std::string prefix;
  std::string session;
  std::string channel;
  bool by_channel = false;
};

// Passes every record to the writer, calling `tick` for the numerous kinds (for progress).
class ProgressVisitor : public ForwardingVisitor {
 public:
  ProgressVisitor(EventVisitor& next, std::function<void()> tick)
      : ForwardingVisitor(next), tick_(std::move(tick)) {}
  void onKernel(const KernelEvent& e) override { tick_(), next_.onKernel(e); }
  void onMemcpy(const MemcpyEvent& e) override { tick_(), next_.onMemcpy(e); }
  void onScopeBegin(const ScopeBegin& e) override { tick_(), next_.onScopeBegin(e); }
  void onScopeEnd(const ScopeEnd& e) override { tick_(), next_.onScopeEnd(e); }
  void onGpuSample(const GpuSample& e) override { tick_(), next_.onGpuSample(e); }
  void onHostSample(const HostSample& e) override { tick_(), next_.onHostSample(e); }
  void onPcSample(const PcSample& e) override { tick_(), next_.onPcSample(e); }
  void onSassMetric(const SassMetric& e) override { tick_(), next_.onSassMetric(e); }

 private:
  std::function<void()> tick_;
};

std::string readAll(std::FILE* f) {
  std::string text;
  std::rewind(f);
  char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  return text;
}

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
  const PrefixArg p = resolvePrefix(a.prefix);
  if (!p.error.empty()) {
    printError(ctx.err, "gpufl cat", p.error);
    ctx.exit_code = kExitFailure;
    return;
  }
  // The writer prints the channels one after another (each from its session_start); they are
  // collected in a temporary file, then merged by time and printed as one stream.
  std::FILE* staging = std::tmpfile();
  if (staging == nullptr) {
    ctx.err << "gpufl cat: cannot create a temporary file: " << std::strerror(errno) << "\n";
    ctx.exit_code = kExitFailure;
    return;
  }
  // The writer knows each record's channel: it leaves out the others' (CatKeepsEveryRecordType
  // checks that no record kind is lost; a hand-written filter here once dropped device, sync and
  // memory).
  auto writer = log::LogWriter::toStream(staging, only);
  log::ReadOptions options;
  options.session = a.session;
  Progress progress(ctx.err, ctx.err_is_terminal, "gpufl cat: reading " + p.prefix);
  uint64_t records = 0;
  ProgressVisitor counting(*writer, [&] {
    if (++records % report::kProgressRecords == 0) progress.update(records);
  });
  log::ReadResult r = log::readPrefix(p.prefix, options, counting);
  progress.done();
  writer->close();
  std::fflush(staging);
  std::string text = nameKernelEvents(readAll(staging));
  std::fclose(staging);
  // The reader hands on each channel's copy of session_start and session_end, whichever channel is
  // kept: merging prints them once and in place (session_end last), for one channel too.
  if (!a.by_channel) text = mergeByTime(text);
  ctx.out.flush();  // `out` and out_file are the same destination
  std::fwrite(text.data(), 1, text.size(), ctx.out_file);
  std::fflush(ctx.out_file);
  if (!r.found_files) {  // the reader's one warning says the same: said once, here
    printError(ctx.err, "gpufl cat", missingLogsMessage(p.prefix));
    ctx.exit_code = kExitFailure;
    return;
  }
  std::string session_problem;  // "no session matches 'x'; available sessions: ..."
  for (const log::ReadWarning& w : r.warnings) {
    if (!r.any_readable && w.file.empty() && w.line == 0 && session_problem.empty()) {
      session_problem = w.message;
      continue;
    }
    ctx.err << terminalSafe(log::formatWarning(w)) << "\n";
  }
  if (r.warning_count > r.warnings.size())
    ctx.err << "... and " << (r.warning_count - r.warnings.size()) << " more warnings\n";
  if (!r.any_readable) {
    printError(ctx.err, "gpufl cat",
               !session_problem.empty()
                   ? session_problem
                   : "no readable records under '" + p.prefix + "'" +
                         (a.session.empty() ? "" : " for session '" + a.session + "'"));
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
  cmd->add_flag("--by-channel", args->by_channel,
                "Channels one after another, as stored (default: one stream in time order)");
  cmd->callback([args, &ctx] { runCat(*args, ctx); });
}

}  // namespace gpufl::cli
