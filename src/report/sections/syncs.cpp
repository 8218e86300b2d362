// Section "Host Waits": the host's waits on the GPU (sync_event records), under the transfers'
// banner; only for sessions that recorded them.
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
namespace {

bool recorded(const Report& r) {
  return r.syncs.enabled || r.syncs.count > 0;
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  const SyncSummary& s = r.syncs;
  if (s.count == 0) {
    out.field(2, "Host Waits", kTopLabelWidth, "none recorded (sync events on)");
    return;
  }
  out.field(2, "Host Waits", kTopLabelWidth,
            formatCount(s.count) + " waits for the GPU, " +
                formatDuration(static_cast<double>(s.total_ns)) + " in all");
  out.line("  " + padRight("Kind", 22) + padLeft("Count", 10) + padLeft("Total Time", 14) +
           padLeft("Max", 14));
  out.dashes(60);
  for (const SyncStats& k : s.kinds) {
    out.line("  " + padRight(k.kind, 22) + padLeft(formatCount(k.count), 10) +
             padLeft(formatDuration(static_cast<double>(k.total_ns)), 14) +
             padLeft(formatDuration(static_cast<double>(k.max_ns)), 14));
  }
  out.line("  Longest waiting scopes:");
  for (const SyncScopeStats& sc : s.scopes) {
    out.line("    " + padRight(scopePathName(r.scopes, sc.path), 40) +
             padLeft(formatDuration(static_cast<double>(sc.total_ns)), 14) + "  (" +
             formatCount(sc.count) + (sc.count == 1 ? " wait)" : " waits)"));
  }
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  if (recorded(r)) json::put(w, "syncs", r.syncs, r);
}

}  // namespace

extern const Section kSyncs = {
    .name = "syncs", .text = writeText, .in_text = recorded, .json = writeJson};

}  // namespace gpufl::report::sections
