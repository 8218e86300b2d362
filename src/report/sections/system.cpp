// Section "System Metrics": the GPUs' NVML samples and the host's /proc samples over the session.
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
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
  if (g.vram_peak_bytes) {
    std::string v = "peak " + mib(*g.vram_peak_bytes);
    if (g.vram_total_bytes > 0)
      v += " / " + mib(g.vram_total_bytes) + " MiB (" +
           f1(100.0 * static_cast<double>(*g.vram_peak_bytes) /
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
  if (!g.util_gpu.n && !g.temp_c.n && !g.power_w.n && !g.vram_peak_bytes && !g.clk_sm.n)
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
  if (h.ram_peak_bytes) {
    std::string v = "peak " + mib(*h.ram_peak_bytes);
    if (h.ram_total_bytes > 0)
      v += " / " + mib(h.ram_total_bytes) + " MiB (" +
           f1(100.0 * static_cast<double>(*h.ram_peak_bytes) /
              static_cast<double>(h.ram_total_bytes)) +
           "%)";
    else
      v += " MiB";
    field("RAM Usage", v);
  }
  if (h.rss_peak_bytes) field("Process RSS", "peak " + mib(h.rss_peak_bytes) + " MiB");
}

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
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

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  w.key("system").beginObject();
  json::put(w, "gpus", r.gpus, r);
  json::put(w, "host", r.host, r);
  w.endObject();
}

}  // namespace

extern const Section kSystem = {.name = "system", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
