// Section "Allocations": memory allocations and releases (memory_event records), under the
// transfers' banner; only for sessions that recorded them.
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
namespace {

bool recorded(const Report& r) {
  return r.memory.enabled || r.memory.allocs > 0 || r.memory.frees > 0;
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  const MemorySummary& m = r.memory;
  if (m.allocs == 0 && m.frees == 0) {
    out.field(2, "Allocations", kTopLabelWidth, "none recorded (memory events on)");
    return;
  }
  out.field(2, "Allocations", kTopLabelWidth,
            formatCount(m.allocs) + " (" + formatBytes(m.bytes) + "), " + formatCount(m.frees) +
                " releases");
  out.field(2, "Peak In Use", kTopLabelWidth,
            formatBytes(m.peak_in_use) + " (" + formatBytes(m.in_use_at_end) + " never released)");
  out.line("  " + padRight("Memory", 12) + padLeft("Allocs", 10) + padLeft("Releases", 10) +
           padLeft("Bytes", 14) + padLeft("Largest", 14));
  out.dashes(60);
  for (const MemoryKindStats& k : m.kinds) {
    out.line("  " + padRight(k.kind, 12) + padLeft(formatCount(k.allocs), 10) +
             padLeft(formatCount(k.frees), 10) + padLeft(formatBytes(k.bytes), 14) +
             padLeft(formatBytes(k.largest), 14));
  }
  out.line("  Scopes that allocate most:");
  for (const MemoryScopeStats& sc : m.scopes) {
    out.line("    " + padRight(keepEnd(scopePathName(r.scopes, sc.path), 39), 40) +
             padLeft(formatCount(sc.allocs), 10) + (sc.allocs == 1 ? " alloc  " : " allocs ") +
             formatBytes(sc.bytes));
  }
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  if (recorded(r)) json::put(w, "memory", r.memory, r);
}

}  // namespace

extern const Section kMemory = {
    .name = "memory", .text = writeText, .in_text = recorded, .json = writeJson};

}  // namespace gpufl::report::sections
