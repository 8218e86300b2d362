// The metric names, units and labels of `gpufl monitor` (docs/fleet.md lists them). Values are
// converted to base units here: ratios 0..1, bytes, watts, joules, hertz, seconds.
#include <map>
#include <optional>
#include <string>

#include "monitor/exposition.hpp"
#include "monitor/snapshot.hpp"

namespace gpufl::monitor {
namespace {

// NVML reports PCIe throughput in KB/s with KB = 1024 bytes (as nvidia-smi's "KB/s").
constexpr double kPcieKiB = 1024.0;

const nvml::GpuIdentity* identityOf(const Snapshot& s, uint32_t gpu) {
  for (const nvml::GpuIdentity& id : s.gpus) {
    if (id.index == gpu) return &id;
  }
  return nullptr;
}

Labels gpuLabels(const Snapshot& s, uint32_t gpu) {
  const nvml::GpuIdentity* id = identityOf(s, gpu);
  return {{"gpu", std::to_string(gpu)},
          {"uuid", id ? id->uuid : std::string()},
          {"name", id ? id->name : std::string()}};
}

Labels with(Labels labels, std::string key, std::string value) {
  labels.emplace_back(std::move(key), std::move(value));
  return labels;
}

// One gauge or counter per GPU from an optional field of GpuSample, scaled to its base unit.
template <typename Field>
void perGpu(Exposition& e, const Snapshot& s, const char* name, MetricType type, const char* help,
            Field field, double scale) {
  e.family(name, type, help);
  for (const GpuSample& g : s.gpu_samples) {
    const auto& v = field(g);
    if (v) e.sample(gpuLabels(s, g.gpu), static_cast<double>(*v) * scale);
  }
}

void gpuFamilies(Exposition& e, const Snapshot& s) {
  const MetricType G = MetricType::Gauge;
  e.family("gpufl_gpu_info", G, "GPUs NVML sees (value 1), labelled with index, UUID and name");
  for (const nvml::GpuIdentity& id : s.gpus) e.sample(gpuLabels(s, id.index), 1);
  perGpu(
      e, s, "gpufl_gpu_utilization_ratio", G,
      "Fraction of the last sample period in which a kernel ran (NVML utilization.gpu)",
      [](const GpuSample& g) { return g.util_gpu; }, 0.01);
  perGpu(
      e, s, "gpufl_gpu_memory_utilization_ratio", G,
      "Fraction of the last sample period in which device memory was read or written",
      [](const GpuSample& g) { return g.util_mem; }, 0.01);
  perGpu(
      e, s, "gpufl_gpu_memory_used_bytes", G, "Device memory in use",
      [](const GpuSample& g) { return g.mem_used_bytes; }, 1);
  perGpu(
      e, s, "gpufl_gpu_memory_total_bytes", G, "Device memory in all",
      [](const GpuSample& g) { return g.mem_total_bytes; }, 1);
  perGpu(
      e, s, "gpufl_gpu_temperature_celsius", G, "GPU die temperature",
      [](const GpuSample& g) { return g.temp_c; }, 1);
  perGpu(
      e, s, "gpufl_gpu_power_watts", G, "Board power draw",
      [](const GpuSample& g) { return g.power_mw; }, 1e-3);
  perGpu(
      e, s, "gpufl_gpu_power_limit_watts", G, "Enforced power limit",
      [](const GpuSample& g) { return g.power_limit_mw; }, 1e-3);
  perGpu(
      e, s, "gpufl_gpu_energy_joules_total", MetricType::Counter,
      "Energy the GPU used since the driver was loaded",
      [](const GpuSample& g) { return g.energy_mj; }, 1e-3);
  perGpu(
      e, s, "gpufl_gpu_sm_clock_hertz", G, "SM clock", [](const GpuSample& g) { return g.clk_sm; },
      1e6);
  perGpu(
      e, s, "gpufl_gpu_memory_clock_hertz", G, "Memory clock",
      [](const GpuSample& g) { return g.clk_mem; }, 1e6);
  perGpu(
      e, s, "gpufl_gpu_graphics_clock_hertz", G, "Graphics clock",
      [](const GpuSample& g) { return g.clk_gfx; }, 1e6);
  perGpu(
      e, s, "gpufl_gpu_pcie_receive_bytes_per_second", G,
      "PCIe bytes received by the GPU per second (NVML samples it over 20 ms)",
      [](const GpuSample& g) { return g.pcie_rx_kbps; }, kPcieKiB);
  perGpu(
      e, s, "gpufl_gpu_pcie_transmit_bytes_per_second", G,
      "PCIe bytes sent by the GPU per second (NVML samples it over 20 ms)",
      [](const GpuSample& g) { return g.pcie_tx_kbps; }, kPcieKiB);

  e.family("gpufl_gpu_throttle_reason", G,
           "Clock event (throttle) reasons: 1 while the reason holds the clocks down, else 0");
  for (const GpuSample& g : s.gpu_samples) {
    if (!g.throttle) continue;
    for (int bit = 0; bit < 64; ++bit) {
      const uint64_t mask = uint64_t{1} << bit;
      const std::string name = nvml::throttleReasonNames(mask).front();
      const bool set = (*g.throttle & mask) != 0;
      // Every known reason, 0 or 1, so that a reason going away reads 0 rather than vanishing.
      if (!set && name.rfind("unknown_", 0) == 0) continue;
      e.sample(with(gpuLabels(s, g.gpu), "reason", name), set ? 1 : 0);
    }
  }

  e.family("gpufl_gpu_process_memory_used_bytes", G,
           "Device memory a compute process holds on a GPU (pid in the host's namespace)");
  for (const ProcessRow& p : s.processes) {
    if (!p.memory.used_bytes) continue;
    Labels l = with(gpuLabels(s, p.memory.gpu), "pid", std::to_string(p.memory.pid));
    e.sample(with(std::move(l), "command", p.command), static_cast<double>(*p.memory.used_bytes));
  }
}

void hostFamilies(Exposition& e, const Snapshot& s) {
  const MetricType G = MetricType::Gauge;
  if (!s.host) return;
  const HostSample& h = *s.host;
  auto one = [&](const char* name, const char* help, auto v, double scale) {
    e.family(name, G, help);
    if (v) e.sample({}, static_cast<double>(*v) * scale);
  };
  one("gpufl_host_cpu_utilization_ratio", "Fraction of all CPU time busy over the last period",
      h.cpu_pct, 0.01);
  one("gpufl_host_memory_used_bytes", "Host memory in use (MemTotal - MemAvailable)",
      h.ram_used_bytes, 1);
  one("gpufl_host_memory_total_bytes", "Host memory in all", h.ram_total_bytes, 1);
  one("gpufl_monitor_cpu_ratio",
      "CPU the monitor itself used over the last period, in cores (1 = one core busy)",
      h.proc_cpu_pct, 0.01);
  one("gpufl_monitor_resident_memory_bytes", "Resident memory of the monitor", h.proc_rss_bytes, 1);
}

// gpufl's own health in each profiled program (its latest health record): the same counters the
// report's Trace Health reads.
void appHealthFamilies(Exposition& e, const Snapshot& s) {
  const MetricType C = MetricType::Counter, G = MetricType::Gauge;
  auto labels = [](const AppHealth& h) {
    return Labels{{"app", h.app}, {"pid", std::to_string(h.pid)}, {"session", h.sid}};
  };
  auto each = [&](const char* name, MetricType type, const char* help, const char* label,
                  std::map<std::string, uint64_t> AppHealth::*field, double scale) {
    e.family(name, type, help);
    for (const AppHealth& h : s.app_health)
      for (const auto& [key, v] : h.*field)
        e.sample(with(labels(h), label, key), static_cast<double>(v) * scale);
  };
  auto one = [&](const char* name, MetricType type, const char* help, auto value) {
    e.family(name, type, help);
    for (const AppHealth& h : s.app_health)
      if (auto v = value(h)) e.sample(labels(h), *v);
  };
  each("gpufl_app_self_cpu_seconds_total", C,
       "CPU time of gpufl's own threads in a profiled program, by thread role (writer, cupti, "
       "sampler, ...; from its health records)",
       "thread", &AppHealth::cpu_ns, 1e-9);
  each("gpufl_app_records_dropped_total", C,
       "Records gpufl lost in a profiled program, by source (session_end's dropped keys)", "source",
       &AppHealth::dropped, 1);
  each("gpufl_app_trace_violations_total", C,
       "Records that failed gpufl's checks as it wrote them, by check (zero_time, reversed, "
       "before_launch, in_future, implausible_duration, correlation_order, clock_step, "
       "clock_drift)",
       "check", &AppHealth::violations, 1);
  one("gpufl_app_records_written_total", C, "Records gpufl wrote to a profiled program's log",
      [](const AppHealth& h) { return std::optional<double>(static_cast<double>(h.records)); });
  one("gpufl_app_records_checked_total", C,
      "Kernel and copy records gpufl checked as it wrote them",
      [](const AppHealth& h) { return std::optional<double>(static_cast<double>(h.checked)); });
  one("gpufl_app_resident_memory_bytes", G, "Resident memory of a profiled program (gpufl in it)",
      [](const AppHealth& h) { return std::optional<double>(static_cast<double>(h.rss_bytes)); });
  one("gpufl_app_self_buffer_bytes", G, "Memory gpufl's own buffers hold in a profiled program",
      [](const AppHealth& h) {
        return std::optional<double>(static_cast<double>(h.buffer_bytes));
      });
  one("gpufl_app_clock_drift_seconds", G,
      "Drift of the GPU-to-host clock offset since the session began (CUPTI vs the host clock)",
      [](const AppHealth& h) {
        return h.has_clock ? std::optional<double>(static_cast<double>(h.clock_drift_ns) * 1e-9)
                           : std::nullopt;
      });
  one("gpufl_app_step_downs", G,
      "What gpufl gave up to stay within the user's limits (deep engines paused, sampling slowed)",
      [](const AppHealth& h) { return std::optional<double>(static_cast<double>(h.step_downs)); });
}

void appFamilies(Exposition& e, const Snapshot& s) {
  if (!s.apps_watched) return;
  auto labels = [](const AppSeries& a) {
    return Labels{
        {"app", a.app}, {"pid", std::to_string(a.pid)}, {"session", a.sid}, {"uuid", a.uuid}};
  };
  e.family("gpufl_app_kernels_total", MetricType::Counter,
           "Kernels a profiled program ran on a GPU (from its gpufl log)");
  for (const AppSeries& a : s.apps) e.sample(labels(a), static_cast<double>(a.kernels));
  e.family(
      "gpufl_app_kernel_seconds_total", MetricType::Counter,
      "GPU time of a profiled program's kernels, summed (its rate is the busy fraction; concurrent "
      "kernels add up, so it can exceed 1)");
  for (const AppSeries& a : s.apps) e.sample(labels(a), static_cast<double>(a.kernel_ns) * 1e-9);
  appHealthFamilies(e, s);
}

}  // namespace

std::string renderMetrics(const Snapshot& s) {
  Exposition e;
  e.family("gpufl_nvml_up", MetricType::Gauge,
           "1 when NVML is loaded and sees a GPU; 0 with the reason as a label when it is not");
  e.sample({{"reason", s.nvml_up ? std::string() : s.nvml_reason}}, s.nvml_up ? 1 : 0);
  gpuFamilies(e, s);
  hostFamilies(e, s);
  appFamilies(e, s);
  e.family("gpufl_monitor_samples_total", MetricType::Counter, "Sampling ticks done");
  e.sample({}, static_cast<double>(s.samples_total));
  e.family("gpufl_monitor_sample_duration_seconds", MetricType::Gauge,
           "Wall time the latest tick took (NVML, /proc and the log)");
  e.sample({}, s.last_sample_duration_s);
  e.family("gpufl_monitor_tick_cpu_seconds_total", MetricType::Counter,
           "CPU time of the sampler thread by part of the tick (the render of this text counts "
           "in the next)");
  for (size_t i = 0; i < kTickParts.size() && i < s.tick_cpu_ns.size();
       ++i)  // ns / 1e9: exact digits
    e.sample({{"part", kTickParts[i]}}, static_cast<double>(s.tick_cpu_ns[i]) / 1e9);
  e.family("gpufl_monitor_last_sample_timestamp_seconds", MetricType::Gauge,
           "Unix time of the latest tick");
  e.sample({}, s.last_sample_unix_s);
  if (s.logging) {
    e.family("gpufl_monitor_log_records_total", MetricType::Counter,
             "Records written to the system log");
    e.sample({}, static_cast<double>(s.log_records_total));
    e.family("gpufl_monitor_log_write_errors_total", MetricType::Counter,
             "Failed writes to the system log (disk full, file removed)");
    e.sample({}, static_cast<double>(s.log_write_errors_total));
  }
  return e.text();
}

}  // namespace gpufl::monitor
