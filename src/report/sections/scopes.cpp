// Section "Scope Summary": wall time per scope path and GPU time by scope, as an indented tree.
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
namespace {

constexpr size_t kScopeNameWidth = 30;
constexpr size_t kMaxScopeRows = 100;

// The scope's name indented two spaces per level, cut to fit the column with one space to spare.
std::string scopeLabel(const ScopeRow& row) {
  std::string label = std::string(2 * static_cast<size_t>(row.depth), ' ') + row.name;
  if (displayWidth(label) > kScopeNameWidth - 1) {
    size_t cut = kScopeNameWidth - 4;  // bytes; back up to the start of a UTF-8 character
    while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) --cut;
    label = label.substr(0, cut) + "...";
  }
  return label;
}

std::string dur(int64_t ns) {
  return formatDuration(static_cast<double>(ns));
}

void renderTiming(TextOut& out, const ScopeSummary& s) {
  out.line("  Scope Timing:");
  out.line("  " + padRight("Scope", kScopeNameWidth) + padLeft("Calls", 6) + padLeft("Total", 12) +
           padLeft("Avg", 12) + padLeft("Max", 12));
  out.dashes(kScopeNameWidth + 42);
  size_t shown = 0;
  for (const ScopeRow& row : s.rows) {
    if (shown++ == kMaxScopeRows) {
      out.line("  ... " + formatCount(s.rows.size() - kMaxScopeRows) +
               " more scope paths (see --json)");
      break;
    }
    std::string avg = row.calls ? dur(row.total_ns / static_cast<int64_t>(row.calls)) : "-";
    out.line("  " + padRight(scopeLabel(row), kScopeNameWidth) +
             padLeft(formatCount(row.calls), 6) + padLeft(row.calls ? dur(row.total_ns) : "-", 12) +
             padLeft(avg, 12) + padLeft(row.calls ? dur(row.max_ns) : "-", 12));
  }
  if (s.unfinished > 0) {
    std::string which;
    size_t listed = 0;
    for (const ScopeRow& row : s.rows) {
      if (row.unfinished == 0 || listed == 5) continue;
      which += (listed++ ? ", " : "") + row.name + " x" + formatCount(row.unfinished);
    }
    out.wrapped(formatCount(s.unfinished) + " began but never ended (" + which + ")", kRuleWidth,
                "  " + padRight("Unfinished:", kTopLabelWidth),
                std::string(2 + kTopLabelWidth, ' '));
  }
  if (s.unmatched_ends > 0)
    out.field(2, "Unmatched Ends", kTopLabelWidth,
              formatCount(s.unmatched_ends) + " scope ends without a begin");
}

// A scope's kernels are attributed by launch, but launches return at once: the kernels may run
// long after the scope ended, so GPU time can exceed the scope's wall time. Say so, or the table
// reads as a contradiction.
void asyncNote(TextOut& out, const ScopeSummary& s) {
  std::string which;
  size_t n = 0;
  for (const ScopeRow& row : s.rows) {
    if (row.calls == 0 || row.gpu_incl_ns <= row.total_ns) continue;
    if (n++ < 3)
      which += (which.empty() ? "" : ", ") + row.name + " (" + dur(row.gpu_incl_ns) + " GPU, " +
               dur(row.total_ns) + " wall)";
  }
  if (n == 0) return;
  if (n > 3) which += " and " + formatCount(n - 3) + " more";
  out.line();
  out.wrapped("GPU time exceeds wall time in " + which +
                  ": kernel launches are asynchronous, so kernels launched in a scope may run "
                  "after it ends. Synchronize at the scope's end to keep them inside it.",
              kRuleWidth, "  Note: ", "        ");
}

void renderGpuByScope(TextOut& out, const ScopeSummary& s) {
  out.line("  GPU Time by Scope:");
  bool any = false;
  for (const ScopeRow& row : s.rows) any |= row.kernels_incl > 0;
  if (!any) {
    out.line("  No kernels ran inside scopes.");
    return;
  }
  out.line("  " + padRight("Scope", kScopeNameWidth) + padLeft("Kernels", 8) +
           padLeft("GPU Time", 14) + padLeft("Avg", 12) + padLeft("Self", 12));
  out.dashes(kScopeNameWidth + 46);
  auto row = [&](const std::string& label, uint64_t kernels, int64_t incl_ns, int64_t self_ns) {
    out.line("  " + padRight(label, kScopeNameWidth) + padLeft(formatCount(kernels), 8) +
             padLeft(dur(incl_ns), 14) + padLeft(dur(incl_ns / static_cast<int64_t>(kernels)), 12) +
             padLeft(dur(self_ns), 12));
  };
  size_t shown = 0;
  for (const ScopeRow& r : s.rows) {
    if (r.kernels_incl == 0) continue;
    if (shown++ == kMaxScopeRows) {
      out.line("  ... more scope paths (see --json)");
      break;
    }
    row(scopeLabel(r), r.kernels_incl, r.gpu_incl_ns, r.gpu_self_ns);
  }
  if (s.kernels_outside > 0)
    row("(outside any scope)", s.kernels_outside, s.gpu_outside_ns, s.gpu_outside_ns);
  asyncNote(out, s);
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  const ScopeSummary& s = r.scopes;
  out.banner("Scope Summary");
  if (s.rows.empty()) {
    out.line("  No scopes recorded.");
    return;
  }
  renderTiming(out, s);
  out.line();
  renderGpuByScope(out, s);
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "scopes", r.scopes, r);
}

}  // namespace

extern const Section kScopes = {.name = "scopes", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
