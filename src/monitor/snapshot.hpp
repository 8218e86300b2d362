// What one /metrics answer shows: the latest readings of every source, copied out of the sampler
// thread once per tick, and the function that turns them into Prometheus exposition text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "monitor/app_activity.hpp"
#include "nvml/nvml_sampler.hpp"

namespace gpufl::monitor {

struct ProcessRow {
  nvml::ProcessMemory memory;
  std::string command;  // /proc/<pid>/comm, empty when the process is gone or not visible
};

// The parts of a tick whose CPU time is counted, in the order they run (label values of
// gpufl_monitor_tick_cpu_seconds_total).
inline constexpr std::array<const char*, 6> kTickParts = {"host", "gpu_sample", "gpu_processes",
                                                          "apps", "log",        "render"};
enum TickPart : size_t { kHost, kGpuSample, kGpuProcesses, kApps, kLog, kRender };

struct Snapshot {
  bool nvml_up = false;
  std::string nvml_reason;  // why NVML is off (empty when up)
  std::vector<nvml::GpuIdentity> gpus;
  std::vector<GpuSample> gpu_samples;  // latest per GPU; PCIe fields carried over between reads
  std::vector<ProcessRow> processes;
  std::optional<HostSample> host;
  bool apps_watched = false;          // --apps given
  std::vector<AppSeries> apps;        // kernel activity of profiled programs (app_activity.hpp)
  std::vector<AppHealth> app_health;  // their latest health records
  // CPU time of the sampler thread per part of a tick, summed over ticks (where the monitor's own
  // cost goes: NVML calls are driver ioctls on a real GPU). Parts: kTickParts.
  std::vector<uint64_t> tick_cpu_ns = std::vector<uint64_t>(kTickParts.size(), 0);
  uint64_t samples_total = 0;         // ticks done
  double last_sample_duration_s = 0;  // wall time of the latest tick
  double last_sample_unix_s = 0;      // when the latest tick began
  bool logging = false;               // a log prefix was given
  uint64_t log_records_total = 0;
  uint64_t log_write_errors_total = 0;
};

// Prometheus text for `s` (every family with HELP and TYPE; units in the names).
std::string renderMetrics(const Snapshot& s);

}  // namespace gpufl::monitor
