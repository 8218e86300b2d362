// Text sections about the machine: memory transfers and system (NVML and host) metrics.
#include "report/scope_stats.hpp"
#include "report/text_common.hpp"

namespace gpufl::report::text {
namespace {

std::string f1(double v) {
  return formatFixed(v, 1);
}
std::string f0(double v) {
  return formatFixed(v, 0);
}

std::string mib(uint64_t bytes) {
  return formatMiB(bytes);
}

std::string transferLine(const TransferStats& s) {
  return formatCount(s.count) + " (" + formatBytes(s.bytes) + ", " + formatRate(s.throughput_bps) +
         ", " + formatDuration(static_cast<double>(s.total_ns)) + ")";
}

void renderGpu(TextOut& out, const GpuSystemStats& g, bool several) {
  out.line(several ? "  GPU " + std::to_string(g.gpu) + " Metrics:" : "  GPU Metrics:");
  auto field = [&](const char* label, const std::string& v) {
    out.field(4, label, kSubLabelWidth, v);
  };
  if (g.util_gpu.n)
    field("Utilization", "avg " + f1(g.util_gpu.avg()) + "%  peak " + f0(g.util_gpu.max) +
                             "%  min " + f0(g.util_gpu.min) + "%");
  if (g.util_mem.n)
    field("Memory Util", "avg " + f1(g.util_mem.avg()) + "%  peak " + f0(g.util_mem.max) + "%");
  if (g.temp_c.n)
    field("Temperature", "avg " + f1(g.temp_c.avg()) + " C  peak " + f0(g.temp_c.max) + " C");
  if (g.power_w.n) {
    std::string limit = g.power_limit_w ? "  limit " + f1(*g.power_limit_w) + " W" : "";
    field("Power", "avg " + f1(g.power_w.avg()) + " W  peak " + f1(g.power_w.max) + " W" + limit);
  }
  if (g.energy_j)
    field("Energy",
          formatEnergy(*g.energy_j) +
              (g.energy_source == "counter" ? " (energy counter)" : " (integrated power)"));
  if (g.has_vram) {
    std::string v = "peak " + mib(g.vram_peak_bytes);
    if (g.vram_total_bytes > 0)
      v += " / " + mib(g.vram_total_bytes) + " MiB (" +
           f1(100.0 * static_cast<double>(g.vram_peak_bytes) /
              static_cast<double>(g.vram_total_bytes)) +
           "%)";
    else
      v += " MiB";
    field("VRAM Usage", v);
  }
  if (g.clk_sm.n)
    field("SM Clock", "avg " + f0(g.clk_sm.avg()) + " MHz  peak " + f0(g.clk_sm.max) + " MHz");
  if (g.clk_mem.n)
    field("Memory Clock",
          "avg " + f0(g.clk_mem.avg()) + " MHz  peak " + f0(g.clk_mem.max) + " MHz");
  // NVML reports PCIe throughput in KB/s.
  if (g.pcie_rx_kbps.n)
    field("PCIe RX", "avg " + formatRate(g.pcie_rx_kbps.avg() * 1e3) + "  peak " +
                         formatRate(g.pcie_rx_kbps.max * 1e3));
  if (g.pcie_tx_kbps.n)
    field("PCIe TX", "avg " + formatRate(g.pcie_tx_kbps.avg() * 1e3) + "  peak " +
                         formatRate(g.pcie_tx_kbps.max * 1e3));
  if (g.throttle_samples) {
    std::string v;
    for (const ThrottleShare& t : g.throttle) {
      if (!v.empty()) v += ", ";
      v += t.reason + " (" + formatPercent(t.pct) + ")";
    }
    if (v.empty()) v = "none";
    out.wrapped(v, kRuleWidth, "    " + padRight("Throttle Reasons:", kSubLabelWidth),
                std::string(4 + kSubLabelWidth, ' '));
  }
  if (!g.util_gpu.n && !g.temp_c.n && !g.power_w.n && !g.has_vram && !g.clk_sm.n)
    out.line("    " + formatCount(g.samples) + " samples, no readable fields");
}

void renderHost(TextOut& out, const HostSystemStats& h) {
  out.line("  Host Metrics:");
  auto field = [&](const char* label, const std::string& v) {
    out.field(4, label, kSubLabelWidth, v);
  };
  if (h.cpu_pct.n)
    field("CPU Utilization", "avg " + f1(h.cpu_pct.avg()) + "%  peak " + f1(h.cpu_pct.max) + "%");
  if (h.proc_cpu_pct.n)
    field("Process CPU",
          "avg " + f1(h.proc_cpu_pct.avg()) + "%  peak " + f1(h.proc_cpu_pct.max) + "%");
  if (h.has_ram) {
    std::string v = "peak " + mib(h.ram_peak_bytes);
    if (h.ram_total_bytes > 0)
      v += " / " + mib(h.ram_total_bytes) + " MiB (" +
           f1(100.0 * static_cast<double>(h.ram_peak_bytes) /
              static_cast<double>(h.ram_total_bytes)) +
           "%)";
    else
      v += " MiB";
    field("RAM Usage", v);
  }
  if (h.rss_peak_bytes) field("Process RSS", "peak " + mib(h.rss_peak_bytes) + " MiB");
}

// Host waits (sync events), below the transfers: shown only for sessions that recorded them.
void renderSyncs(TextOut& out, const Report& r) {
  const SyncSummary& s = r.syncs;
  if (!s.enabled && s.count == 0) return;
  out.line();
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

// Allocations and releases (memory events), below the transfers: only for sessions that recorded
// them.
void renderMemory(TextOut& out, const Report& r) {
  const MemorySummary& m = r.memory;
  if (!m.enabled && m.allocs == 0 && m.frees == 0) return;
  out.line();
  if (m.allocs == 0 && m.frees == 0) {
    out.field(2, "Allocations", kTopLabelWidth, "none recorded (memory events on)");
    return;
  }
  out.field(2, "Allocations", kTopLabelWidth,
            formatCount(m.allocs) + " (" + formatBytes(m.bytes) + "), " + formatCount(m.frees) +
                " releases; peak in use " + formatBytes(m.peak_in_use) + ", " +
                formatBytes(m.in_use_at_end) + " never released");
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
    out.line("    " + padRight(scopePathName(r.scopes, sc.path), 40) +
             padLeft(formatCount(sc.allocs), 10) + (sc.allocs == 1 ? " alloc  " : " allocs ") +
             formatBytes(sc.bytes));
  }
}

}  // namespace

void renderTransfers(TextOut& out, const Report& r) {
  const TransferSummary& t = r.transfers;
  out.banner("Memory Transfer Summary");
  if (t.copies == 0 && t.memsets.count == 0) {
    out.line("  No memory transfers recorded.");
    renderSyncs(out, r);
    renderMemory(out, r);
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
  renderSyncs(out, r);
  renderMemory(out, r);
}

void renderSystem(TextOut& out, const Report& r) {
  out.banner("System Metrics");
  if (r.gpus.empty() && r.host.samples == 0) {
    out.line("  No system samples recorded.");
    return;
  }
  bool first = true;
  for (const GpuSystemStats& g : r.gpus) {
    if (!first) out.line();
    first = false;
    renderGpu(out, g, r.gpus.size() > 1);
  }
  if (r.gpus.empty()) {
    out.line("  GPU Metrics:");
    out.line("    No GPU samples recorded.");
  }
  out.line();
  if (r.host.samples == 0) {
    out.line("  Host Metrics:");
    out.line("    No host samples recorded.");
    return;
  }
  renderHost(out, r.host);
}

}  // namespace gpufl::report::text
