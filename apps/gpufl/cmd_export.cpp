// `gpufl export PREFIX... --perfetto out.pftrace | --chrome out.json | --sqlite out.db |
// --parquet DIR [--session ID]`: the sessions as a timeline file, one process per prefix (the ranks
// of a job, or the children `gpufl trace` wrote), or as tables.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "core/terminal_text.hpp"
#include "export/chrome_sink.hpp"
#include "export/parquet_export.hpp"
#include "export/perfetto_sink.hpp"
#include "export/sqlite_export.hpp"
#include "export/timeline_export.hpp"

namespace gpufl::cli {
namespace {

struct ExportArgs {
  std::vector<std::string> prefixes;
  std::string perfetto, chrome, sqlite, parquet, session;
  bool compact = false;
  size_t row_group_rows = size_t{1} << 20;
};

// Runs one export into `sink`; false (with messages on ctx.err) when it failed.
template <class Sink>
bool exportTo(const ExportArgs& a, const std::string& path, const char* format, CliContext& ctx) {
  Sink sink(path);
  if (!sink.ok()) {
    ctx.err << "gpufl export: " << terminalSafe(sink.error()) << "\n";
    return false;
  }
  exporter::TimelineExportOptions options;
  options.session = a.session;
  options.compact_kernel_args = a.compact;
  exporter::TimelineExportResult r = exporter::exportTimeline(a.prefixes, options, sink);
  for (const std::string& w : r.warnings)
    ctx.err << terminalSafe(w.starts_with(": ") ? w.substr(2) : w) << "\n";
  if (!r.ok) {
    ctx.err << "gpufl export: " << terminalSafe(r.error) << "\n";
    return false;
  }
  uint64_t kernels = 0, copies = 0, scopes = 0;
  for (const auto& s : r.sessions) kernels += s.kernels, copies += s.copies, scopes += s.scopes;
  ctx.out << path << ": " << format << ", " << r.sessions.size()
          << (r.sessions.size() == 1 ? " session, " : " sessions, ") << kernels << " kernels, "
          << copies << " copies, " << scopes << " scopes\n";
  return true;
}

bool exportParquet(const ExportArgs& a, CliContext& ctx) {
  exporter::parquet::WriterOptions options;
  options.row_group_rows = a.row_group_rows;
  const exporter::ParquetExportResult r =
      exporter::exportParquet(a.prefixes, a.session, a.parquet, options);
  for (const std::string& w : r.warnings)
    ctx.err << terminalSafe(w.starts_with(": ") ? w.substr(2) : w) << "\n";
  if (!r.ok) {
    ctx.err << "gpufl export: " << terminalSafe(r.error) << "\n";
    return false;
  }
  ctx.out << a.parquet << ": parquet, " << r.sessions
          << (r.sessions == 1 ? " session, " : " sessions, ") << r.rowsOf("kernels") << " kernels, "
          << r.rowsOf("copies") << " copies, " << r.rowsOf("scopes") << " scopes ("
          << r.tables.size() << " tables)\n";
  return true;
}

void runExport(const ExportArgs& a, CliContext& ctx) {
  if (a.perfetto.empty() && a.chrome.empty() && a.sqlite.empty() && a.parquet.empty())
    throw CLI::ValidationError("--perfetto/--chrome/--sqlite/--parquet",
                               "name at least one output file");
  bool ok = true;
  if (!a.perfetto.empty())
    ok = exportTo<exporter::PerfettoSink>(a, a.perfetto, "perfetto", ctx) && ok;
  if (!a.chrome.empty()) ok = exportTo<exporter::ChromeSink>(a, a.chrome, "chrome json", ctx) && ok;
  if (!a.sqlite.empty()) {
    exporter::SqliteExportResult r = exporter::exportSqlite(a.prefixes, a.session, a.sqlite);
    for (const std::string& w : r.warnings)
      ctx.err << terminalSafe(w.starts_with(": ") ? w.substr(2) : w) << "\n";
    if (r.ok) {
      ctx.out << a.sqlite << ": sqlite, " << r.sessions
              << (r.sessions == 1 ? " session, " : " sessions, ") << r.records << " rows\n";
    } else {
      ctx.err << "gpufl export: " << terminalSafe(r.error) << "\n";
      ok = false;
    }
  }
  if (!a.parquet.empty()) ok = exportParquet(a, ctx) && ok;
  ctx.exit_code = ok ? kExitOk : kExitFailure;
}

}  // namespace

void addExportCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export",
                                     "Write sessions as a timeline (Perfetto protobuf, Chrome "
                                     "JSON), an SQLite database or Parquet "
                                     "tables");
  cmd->add_option("prefix", args->prefixes,
                  "Log prefixes; several (the ranks of one job) become one process each")
      ->required();
  cmd->add_option("--perfetto", args->perfetto,
                  "Write a Perfetto trace (TrackEvent protobuf) here");
  cmd->add_option("--chrome", args->chrome, "Write a Chrome trace-event JSON file here");
  cmd->add_option("--sqlite", args->sqlite,
                  "Write an SQLite database here (one table per record type; docs/export.md)");
  cmd->add_option("--parquet", args->parquet,
                  "Write Parquet files into this directory, one table per record kind "
                  "(kernels.parquet, copies.parquet, ...; docs/export.md)");
  cmd->add_option("--row-group-rows", args->row_group_rows,
                  "Parquet: rows per row group (the unit readers read in parallel; memory while "
                  "writing grows with it)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 26))
      ->capture_default_str();
  cmd->add_option("--session", args->session,
                  "Session id or a prefix of it, for every prefix (default: the latest of each)");
  cmd->add_flag(
      "--compact", args->compact,
      "Kernel slices carry their launch shape, occupancy and deep data as one text argument "
      "('launch'), a few bytes per kernel instead of about 80: for sessions of millions of "
      "kernels");
  cmd->callback([args, &ctx] { runExport(*args, ctx); });
}

}  // namespace gpufl::cli
