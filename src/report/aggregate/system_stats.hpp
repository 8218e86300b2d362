// System sample aggregation: per-GPU NVML statistics (utilisation, temperature, power, energy,
// memory, clocks, PCIe, throttling) and host CPU/RAM statistics. Memory grows with the number of
// GPUs, not of samples.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

// Names of the NVML clocks-event (throttle) bits, for samples that carry only the bitmask.
std::vector<std::string> throttleReasonNames(uint64_t mask);

class SystemAggregator {
 public:
  void onGpuSample(const GpuSample& s);
  void onHostSample(const HostSample& s);
  void finish(std::vector<GpuSystemStats>& gpus, HostSystemStats& host) const;

 private:
  struct GpuAcc {
    GpuSystemStats stats;
    std::optional<uint64_t> first_energy_mj, last_energy_mj;
    // The power integral when the counter was first and last read: the sampler reads the costly
    // counter only every few seconds, so the time outside its readings is covered by power.
    double integrated_j_at_first_energy = 0, integrated_j_at_last_energy = 0;
    bool energy_went_back = false;  // counter reset (driver reload): fall back to integrating power
    bool has_prev_power = false;
    int64_t prev_ts_ns = 0;
    double prev_power_w = 0;
    double integrated_j = 0;
    uint64_t power_intervals = 0;
    std::map<std::string, uint64_t> throttle;
  };
  std::map<uint32_t, GpuAcc> gpus_;
  HostSystemStats host_;
};

}  // namespace gpufl::report
