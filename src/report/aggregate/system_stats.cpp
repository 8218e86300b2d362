#include "report/aggregate/system_stats.hpp"

#include <algorithm>

#include "core/checked_math.hpp"

namespace gpufl::report {

std::vector<std::string> throttleReasonNames(uint64_t mask) {
  // nvmlClocksEventReasons bits, in bit order.
  static constexpr const char* kNames[] = {"gpu_idle",
                                           "applications_clocks_setting",
                                           "sw_power_cap",
                                           "hw_slowdown",
                                           "sync_boost",
                                           "sw_thermal_slowdown",
                                           "hw_thermal_slowdown",
                                           "hw_power_brake_slowdown",
                                           "display_clock_setting"};
  std::vector<std::string> out;
  for (size_t bit = 0; bit < std::size(kNames); ++bit)
    if (mask & (uint64_t{1} << bit)) out.emplace_back(kNames[bit]);
  if (mask >> std::size(kNames)) out.emplace_back("other");
  return out;
}

void SystemAggregator::onGpuSample(const GpuSample& s) {
  GpuAcc& acc = gpus_[s.gpu];
  GpuSystemStats& g = acc.stats;
  g.gpu = s.gpu;
  ++g.samples;
  if (s.util_gpu) g.util_gpu.add(*s.util_gpu);
  if (s.util_mem) g.util_mem.add(*s.util_mem);
  if (s.temp_c) g.temp_c.add(*s.temp_c);
  if (s.clk_sm) g.clk_sm.add(*s.clk_sm);
  if (s.clk_mem) g.clk_mem.add(*s.clk_mem);
  if (s.pcie_rx_kbps) g.pcie_rx_kbps.add(static_cast<double>(*s.pcie_rx_kbps));
  if (s.pcie_tx_kbps) g.pcie_tx_kbps.add(static_cast<double>(*s.pcie_tx_kbps));
  if (s.power_limit_mw) g.power_limit_w = static_cast<double>(*s.power_limit_mw) / 1000.0;
  if (s.mem_used_bytes && (!g.vram_peak_bytes || *s.mem_used_bytes > *g.vram_peak_bytes)) {
    g.vram_peak_bytes = *s.mem_used_bytes;
  }
  if (s.mem_total_bytes) g.vram_total_bytes = std::max(g.vram_total_bytes, *s.mem_total_bytes);
  if (s.power_mw) {
    double w = static_cast<double>(*s.power_mw) / 1000.0;
    g.power_w.add(w);
    if (acc.has_prev_power && s.ts_ns > acc.prev_ts_ns) {
      acc.integrated_j +=
          (acc.prev_power_w + w) / 2.0 * static_cast<double>(spanNs(acc.prev_ts_ns, s.ts_ns)) / 1e9;
      ++acc.power_intervals;
    }
    acc.has_prev_power = true;
    acc.prev_ts_ns = s.ts_ns;
    acc.prev_power_w = w;
  }
  if (s.energy_mj) {
    if (!acc.first_energy_mj) {
      acc.first_energy_mj = s.energy_mj;
      acc.integrated_j_at_first_energy = acc.integrated_j;
    }
    if (acc.last_energy_mj && *s.energy_mj < *acc.last_energy_mj) acc.energy_went_back = true;
    acc.last_energy_mj = s.energy_mj;
    acc.integrated_j_at_last_energy = acc.integrated_j;
  }
  if (s.throttle || !s.throttle_reasons.empty()) {
    ++g.throttle_samples;
    std::vector<std::string> reasons = s.throttle_reasons;
    if (reasons.empty() && s.throttle) reasons = throttleReasonNames(*s.throttle);
    std::sort(reasons.begin(), reasons.end());
    reasons.erase(std::unique(reasons.begin(), reasons.end()), reasons.end());
    for (const std::string& r : reasons) ++acc.throttle[r];
  }
}

void SystemAggregator::onHostSample(const HostSample& s) {
  ++host_.samples;
  if (s.cpu_pct) host_.cpu_pct.add(*s.cpu_pct);
  if (s.proc_cpu_pct) host_.proc_cpu_pct.add(*s.proc_cpu_pct);
  if (s.ram_used_bytes && (!host_.ram_peak_bytes || *s.ram_used_bytes > *host_.ram_peak_bytes)) {
    host_.ram_peak_bytes = *s.ram_used_bytes;
    host_.ram_total_bytes = s.ram_total_bytes.value_or(0);
  }
  if (s.proc_rss_bytes) host_.rss_peak_bytes = std::max(host_.rss_peak_bytes, *s.proc_rss_bytes);
}

void SystemAggregator::finish(std::vector<GpuSystemStats>& gpus, HostSystemStats& host) const {
  gpus.clear();
  for (const auto& [id, acc] : gpus_) {
    GpuSystemStats g = acc.stats;
    bool counter_ok = acc.first_energy_mj && acc.last_energy_mj && !acc.energy_went_back &&
                      *acc.last_energy_mj > *acc.first_energy_mj;
    if (counter_ok) {
      g.energy_j = static_cast<double>(*acc.last_energy_mj - *acc.first_energy_mj) / 1000.0 +
                   acc.integrated_j_at_first_energy +
                   (acc.integrated_j - acc.integrated_j_at_last_energy);
      g.energy_source = "counter";
    } else if (acc.power_intervals > 0) {
      g.energy_j = acc.integrated_j;
      g.energy_source = "power";
    }
    for (const auto& [reason, n] : acc.throttle) {
      double pct = g.throttle_samples
                       ? 100.0 * static_cast<double>(n) / static_cast<double>(g.throttle_samples)
                       : 0;
      g.throttle.push_back({reason, n, pct});
    }
    std::stable_sort(
        g.throttle.begin(), g.throttle.end(),
        [](const ThrottleShare& a, const ThrottleShare& b) { return a.samples > b.samples; });
    gpus.push_back(std::move(g));
  }
  host = host_;
}

}  // namespace gpufl::report
