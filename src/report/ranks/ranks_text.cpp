// The text of the many-ranks report (reportFromPrefixes): its own sections, in the single-session
// report's style.
#include <algorithm>
#include <utility>

#include "log/reader.hpp"
#include "report/aggregate/report_builder.hpp"
#include "report/ranks/ranks.hpp"
#include "report/text/format.hpp"
#include "report/text/short_names.hpp"

namespace gpufl::report {
namespace {

const std::string kRule(79, '=');

void section(std::string& out, const std::string& title) {
  out += kRule + "\n  " + title + "\n" + kRule + "\n";
}

std::string signedDuration(int64_t ns) {
  return (ns < 0 ? "-" : "+") + formatDuration(static_cast<double>(ns < 0 ? -ns : ns));
}

std::string rankLabel(const RanksReport& r, size_t i) {
  const SessionSummary& s = r.ranks[i].report.session;
  return "rank " + std::to_string(i) + " (pid " + std::to_string(s.pid) +
         (s.host.empty() ? "" : " @" + s.host) + ")";
}

// One table of a name measured on every rank: min, median, max and the slowest rank.
void acrossTable(std::string& out, const std::vector<AcrossRanks>& rows, const char* what,
                 size_t top) {
  out += "  " + padRight(what, 34) + padLeft("Ranks", 6) + padLeft("Min", 12) +
         padLeft("Median", 12) + padLeft("Max", 12) + "  Slowest\n";
  out += "  " + std::string(92, '-') + "\n";
  // The names shown are shortened as a set, so that different kernels read differently.
  std::vector<std::string> names;
  for (size_t i = 0; i < rows.size() && i < top; ++i) names.push_back(rows[i].name);
  const KernelNames shortName(names, 33);
  size_t shown = 0;
  for (const AcrossRanks& a : rows) {
    if (shown++ == top) break;
    int64_t lo = INT64_MAX, hi = 0;
    size_t present = 0;
    for (int64_t t : a.total_ns)
      if (t >= 0) lo = std::min(lo, t), hi = std::max(hi, t), ++present;
    std::string slow = "rank " + std::to_string(a.slowest);
    if (present > 1)
      slow += " (+" + formatPercent(a.slowest_excess_pct) +
              (present == 2 ? " over the other)" : " over the others' median)");
    out += "  " + padRight(shortName(a.name), 34) +
           padLeft(std::to_string(present) + "/" + std::to_string(a.total_ns.size()), 6) +
           padLeft(formatDuration(static_cast<double>(lo)), 12) +
           padLeft(formatDuration(static_cast<double>(a.median_ns)), 12) +
           padLeft(formatDuration(static_cast<double>(hi)), 12) + "  " + slow + "\n";
  }
  if (rows.empty()) out += "  (none)\n";
  out += "\n";
}

// One row per rank (who, when, how much GPU work), and where each came from.
void ranksTable(std::string& out, const RanksReport& r) {
  section(out, "Ranks");
  out += "  " + padRight("Rank", 6) + padRight("App", 16) + padRight("Host", 14) +
         padLeft("PID", 8) + padLeft("Start", 12) + padLeft("Duration", 11) +
         padLeft("Kernels", 10) + padLeft("GPU Time", 11) + padLeft("Busy", 7) + "\n";
  out += "  " + std::string(95, '-') + "\n";
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const Report& rep = r.ranks[i].report;
    out += "  " + padRight(std::to_string(i), 6) +
           padRight(shortenKernelName(rep.session.app, 15), 16) +
           padRight(shortenKernelName(rep.session.host, 13), 14) +
           padLeft(std::to_string(rep.session.pid), 8) +
           padLeft(signedDuration(r.start_offset_ns[i]), 12) +
           padLeft(formatDuration(static_cast<double>(rep.session.duration_ns)), 11) +
           padLeft(formatCount(rep.kernels.launches), 10) +
           padLeft(formatDuration(static_cast<double>(rep.kernels.total_ns)), 11) +
           padLeft(formatPercent(rep.kernels.busy_pct), 7) + "\n";
  }
  for (size_t i = 0; i < r.ranks.size(); ++i)
    out += "  rank " + std::to_string(i) + ": " + r.ranks[i].prefix + " (session " +
           r.ranks[i].report.session.sid + ")\n";
}

// How much each rank spent in collectives, the time left out of its work.
void collectivesNote(std::string& out, const RanksReport& r) {
  if (!r.collectives) return;
  out += "\n  In " + r.collective_kind +
         (r.collective_kind == "NCCL collectives" ? " (GPU time):" : " (host time):");
  for (size_t i = 0; i < r.ranks.size(); ++i)  // four ranks a line
    out += std::string(i == 0       ? " "
                       : i % 4 == 0 ? ",\n   "
                                    : ", ") +
           "rank " + std::to_string(i) + " " +
           formatDuration(static_cast<double>(r.collective_ns[i]));
  out +=
      ".\n  A rank waiting for a slower one spends the wait inside the collective: that time is "
      "not\n  counted as work when stragglers are named below.\n";
}

// How far times compared between ranks can be trusted.
void clocksNote(std::string& out, const RanksReport& r) {
  out +=
      "\n  Clocks: each session's monotonic start is paired with the wall clock read at the same "
      "moment, and\n"
      "  every time above is on that wall clock (Start: after the earliest rank's start).\n";
  if (r.same_host_pairing_spread_ns >= 0)
    out += "  Ranks on one host share the monotonic clock; their pairings agree within " +
           formatDuration(static_cast<double>(r.same_host_pairing_spread_ns)) +
           ":\n  the uncertainty of times compared between them.\n";
  if (r.several_hosts)
    out +=
        "  Across hosts the uncertainty is that of the hosts' wall-clock sync (NTP: about a "
        "millisecond; PTP:\n"
        "  microseconds), which the logs do not record: differences smaller than that are not "
        "evidence.\n";
  out += "\n";
}

// The ranks behind the others' median, and where their extra time went.
void stragglers(std::string& out, const RanksReport& r) {
  section(out, "Stragglers");
  out += "  Work measured as " + r.work_measure +
         ";\n  a straggler exceeds the other ranks' median by at least " +
         formatFixed(kStragglerMinPct, 0) + "% and " +
         formatDuration(static_cast<double>(kStragglerMinNs)) + ".\n";
  if (r.ranks.size() < 2)
    out += "  (one rank: nothing to compare)\n";
  else if (r.stragglers.empty())
    out += "  None: every rank is within that of the others.\n";
  for (const Straggler& s : r.stragglers) {
    out += "\n  " + rankLabel(r, s.rank) + " is " +
           formatDuration(static_cast<double>(s.behind_ns)) +
           " behind the other ranks' median\n    (" + formatPercent(s.behind_pct) + " more " +
           r.work_measure + ");\n    it finished " +
           formatDuration(static_cast<double>(r.end_offset_ns[s.rank])) +
           " after the first rank to finish. Where:\n";
    std::vector<std::string> names;
    for (const auto& e : s.kernels) names.push_back(e.name);
    const KernelNames kernelName(names, 40);
    for (const auto& e : s.scopes)
      out += "    scope  " + padRight(shortenKernelName(e.name, 40), 41) +
             padLeft(signedDuration(e.excess_ns), 12) + "  (" + formatCount(e.count) +
             " calls; others " + formatCount(e.median_count) + ")\n";
    for (const auto& e : s.kernels)
      out += "    kernel " + padRight(kernelName(e.name), 41) +
             padLeft(signedDuration(e.excess_ns), 12) + "  (" + formatCount(e.count) +
             " launches; others " + formatCount(e.median_count) + ")\n";
    if (s.others_waited_ns > 0)
      out += "    the other ranks spent " +
             formatDuration(static_cast<double>(s.others_waited_ns)) + " more in " +
             r.collective_kind + ": waiting for it there\n";
    if (s.scopes.empty() && s.kernels.empty())
      out +=
          "    no scope or kernel of its own took longer: the delay is host work outside "
          "scopes\n";
  }
}

}  // namespace

std::string renderRanksText(const RanksReport& r, const ReportOptions& options) {
  std::string out;
  out += kRule + "\n" +
         centerText("GPU Flight Report: " + std::to_string(r.ranks.size()) + " ranks", 79) + "\n" +
         centerText("Generated: " + generatedAt(options), 79) + "\n" + kRule + "\n\n";
  ranksTable(out, r);
  collectivesNote(out, r);
  clocksNote(out, r);
  section(out, "Scopes Across Ranks (total time, largest spread first)");
  acrossTable(out, r.scopes, "Scope", static_cast<size_t>(options.top_n));
  section(out, "Kernels Across Ranks (GPU time, largest spread first)");
  acrossTable(out, r.kernels, "Kernel", static_cast<size_t>(options.top_n));
  stragglers(out, r);
  return out;
}

ReportOutput reportFromPrefixes(const std::vector<std::string>& prefixes,
                                const std::string& session, const ReportOptions& options) {
  ReportOutput out;
  std::vector<RankInput> ranks;
  for (const std::string& prefix : prefixes) {
    ReportBuilder builder;
    log::ReadOptions read_options;
    read_options.session = session;
    const log::ReadResult result = log::readPrefix(prefix, read_options, builder);
    for (const log::ReadWarning& w : result.warnings) out.warnings.push_back(log::formatWarning(w));
    if (!result.any_readable) {
      out.error = "no readable session under prefix '" + prefix + "'";
      return out;
    }
    builder.setReaderWarnings(result.warning_count);
    ranks.push_back({prefix, std::move(builder).build()});
  }
  out.text = renderRanksText(compareRanks(std::move(ranks)), options);
  out.ok = true;
  return out;
}

}  // namespace gpufl::report
