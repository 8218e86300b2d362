// The text of the many-ranks report (reportFromPrefixes): its own sections, in the single-session
// report's style.
#include <algorithm>
#include <utility>

#include "core/output_width.hpp"
#include "log/reader.hpp"
#include "report/aggregate/report_builder.hpp"
#include "report/ranks/ranks.hpp"
#include "report/text/format.hpp"
#include "report/text/short_names.hpp"
#include "report/text/text_table.hpp"

namespace gpufl::report {
namespace {

const std::string kRule(79, '=');

void section(std::string& out, const std::string& title) {
  out += kRule + "\n  " + title + "\n" + kRule + "\n";
}

std::string signedDuration(int64_t ns) {
  std::string s = ns < 0 ? "-" : "+";
  s += formatDuration(static_cast<double>(ns < 0 ? -ns : ns));
  return s;
}

std::string rankLabel(const RanksReport& r, size_t i) {
  const SessionSummary& s = r.ranks[i].report.session;
  return "rank " + std::to_string(i) + " (pid " + std::to_string(s.pid) +
         (s.host.empty() ? "" : " @" + s.host) + ")";
}

// One table of a name measured on every rank: min, median, max and the slowest rank, fitted to the
// width (names shortened as a set, so that different kernels read differently).
void acrossTable(std::string& out, const std::vector<AcrossRanks>& rows, const char* what,
                 size_t top, size_t width) {
  if (rows.empty()) {
    out += "  " + std::string(what) + ": (none)\n\n";
    return;
  }
  TextTable table({{"Ranks", true, 0},
                   {"Min", true, 2},
                   {"Median", true, 0},
                   {"Max", true, 1},
                   {"Slowest", false, 0}},
                  what, std::string(what) == "Kernel");
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
    table.addRow(
        {std::to_string(present) + "/" + std::to_string(a.total_ns.size()),
         formatDuration(static_cast<double>(lo)), formatDuration(static_cast<double>(a.median_ns)),
         formatDuration(static_cast<double>(hi)), slow},
        a.name);
  }
  for (const std::string& l : table.render(width)) out += l + "\n";
  out += "\n";
}

// One row per rank (who, when, how much GPU work), fitted to the width (the app last), and where
// each came from.
void ranksTable(std::string& out, const RanksReport& r, size_t width) {
  section(out, "Ranks");
  TextTable ranks({{"Rank", false, 0},
                   {"Host", false, 0},
                   {"PID", true, 0},
                   {"Start", true, 0},
                   {"Duration", true, 0},
                   {"Kernels", true, 1},
                   {"GPU Time", true, 0},
                   {"Busy", true, 0}},
                  "App", false);
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const Report& rep = r.ranks[i].report;
    ranks.addRow({std::to_string(i), rep.session.host, std::to_string(rep.session.pid),
                  signedDuration(r.start_offset_ns[i]),
                  formatDuration(static_cast<double>(rep.session.duration_ns)),
                  formatCount(rep.kernels.launches),
                  formatDuration(static_cast<double>(rep.kernels.total_ns)),
                  formatPercent(rep.kernels.busy_pct)},
                 rep.session.app);
  }
  for (const std::string& l : ranks.render(width)) out += l + "\n";
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
      ".\n  A rank waiting for a slower one spends the wait inside the collective:\n"
      "  that time is not counted as work when stragglers are named below.\n";
}

// How far times compared between ranks can be trusted.
void clocksNote(std::string& out, const RanksReport& r) {
  out +=
      "\n  Clocks: each session's monotonic start is paired with the wall clock read at\n"
      "  the same moment, and every time above is on that wall clock (Start: after\n"
      "  the earliest rank's start).\n";
  if (r.same_host_pairing_spread_ns >= 0)
    out += "  Ranks on one host share the monotonic clock; their pairings\n  agree within " +
           formatDuration(static_cast<double>(r.same_host_pairing_spread_ns)) +
           ": the uncertainty of times compared between them.\n";
  if (r.several_hosts)
    out +=
        "  Across hosts the uncertainty is that of the hosts' wall-clock sync (NTP:\n"
        "  about a millisecond; PTP: microseconds), which the logs do not record:\n"
        "  differences smaller than that are not evidence.\n";
  out += "\n";
}

// Where a straggler's extra time went: "scope NAME +EXCESS (COUNTS)" per line, the names (kernels
// shortened as a set) given the room the width leaves.
void excessLines(std::string& out, const Straggler& s, size_t width) {
  auto tail = [](const Straggler::Excess& e, const char* what) {
    std::string t = "(";  // appended, not "(" + temporary: GCC 12's false -Wrestrict at -O3
    t += formatCount(e.count);
    t += " ";
    t += what;
    t += "; others ";
    t += formatCount(e.median_count);
    t += ")";
    return t;
  };
  size_t tail_w = 0;
  for (const auto& e : s.scopes) tail_w = std::max(tail_w, displayWidth(tail(e, "calls")));
  for (const auto& e : s.kernels) tail_w = std::max(tail_w, displayWidth(tail(e, "launches")));
  constexpr size_t kExcessWidth = 12;  // "  +290.89 ms"
  const size_t fixed = 4 + 7 + kExcessWidth + 2 + tail_w;
  const bool whole = width == kUnlimitedWidth;
  const size_t name_w =
      whole ? kUnlimitedWidth : std::max<size_t>(16, width > fixed + 1 ? width - 1 - fixed : 0);
  std::vector<std::string> kernel_names;
  for (const auto& e : s.kernels) kernel_names.push_back(e.name);
  const KernelNames kernelName(kernel_names, whole ? 40 : name_w, whole);
  std::vector<std::pair<std::string, std::string>> rows;  // "scope  NAME", the rest
  for (const auto& e : s.scopes)
    rows.push_back({"scope  " + (whole ? e.name : shortenKernelName(e.name, name_w)),
                    padLeft(signedDuration(e.excess_ns), kExcessWidth) + "  " + tail(e, "calls")});
  for (const auto& e : s.kernels)
    rows.push_back(
        {"kernel " + kernelName(e.name),
         padLeft(signedDuration(e.excess_ns), kExcessWidth) + "  " + tail(e, "launches")});
  size_t left = 0;
  for (const auto& [name, rest] : rows) left = std::max(left, displayWidth(name));
  for (const auto& [name, rest] : rows) out += "    " + padRight(name, left) + rest + "\n";
}

// The ranks behind the others' median, and where their extra time went.
void stragglers(std::string& out, const RanksReport& r, size_t width) {
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
    excessLines(out, s, width);
    if (s.others_waited_ns > 0) {
      const std::string spent = "    the other ranks spent " +
                                formatDuration(static_cast<double>(s.others_waited_ns)) +
                                " more in " + r.collective_kind + ":";
      out += spent + (displayWidth(spent) + 21 <= kRule.size() ? " " : "\n    ") +
             "waiting for it there\n";
    }
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
  ranksTable(out, r, options.width);
  collectivesNote(out, r);
  clocksNote(out, r);
  section(out, "Scopes Across Ranks (total time, largest spread first)");
  acrossTable(out, r.scopes, "Scope", static_cast<size_t>(options.top_n), options.width);
  section(out, "Kernels Across Ranks (GPU time, largest spread first)");
  acrossTable(out, r.kernels, "Kernel", static_cast<size_t>(options.top_n), options.width);
  stragglers(out, r, options.width);
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
