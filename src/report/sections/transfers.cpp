// Section "Memory Transfer Summary": copies by direction, pageable copies, memsets. Host waits and
// allocations (sections/syncs.cpp, memory.cpp) follow under the same banner.
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
namespace {

std::string transferLine(const TransferStats& s) {
  return formatCount(s.count) + " (" + formatBytes(s.bytes) + ", " + formatRate(s.throughput_bps) +
         ", " + formatDuration(static_cast<double>(s.total_ns)) + ")";
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  const TransferSummary& t = r.transfers;
  out.banner("Memory Transfer Summary");
  if (t.copies == 0 && t.memsets.count == 0) {
    out.line("  No memory transfers recorded.");
    return;
  }
  if (t.copies == 0) {
    out.line("  No memory copies recorded.");
  } else {
    out.field(2, "Total Transfers", kTopLabelWidth, formatCount(t.copies));
    out.field(2, "Total Bytes", kTopLabelWidth, formatBytes(t.copy_bytes));
    if (t.pageable_copies > 0)
      out.field(2, "Pageable Copies", kTopLabelWidth,
                formatCount(t.pageable_copies) + " (" + formatBytes(t.pageable_bytes) + ")");
    out.line();
    out.line("  " + padRight("Direction", 10) + padLeft("Count", 10) + padLeft("Total Bytes", 16) +
             padLeft("Avg Throughput", 18) + padLeft("Total Time", 14));
    out.dashes(68);
    for (const TransferStats& s : t.directions) {
      out.line("  " + padRight(s.kind, 10) + padLeft(formatCount(s.count), 10) +
               padLeft(formatBytes(s.bytes), 16) +
               padLeft(s.total_ns > 0 ? formatRate(s.throughput_bps) : "n/a", 18) +
               padLeft(formatDuration(static_cast<double>(s.total_ns)), 14));
    }
  }
  if (t.memsets.count > 0) {
    out.line();
    out.field(2, "Memsets", kTopLabelWidth, transferLine(t.memsets));
  }
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "transfers", r.transfers, r);
}

}  // namespace

extern const Section kTransfers = {.name = "transfers", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
