// Hints: what the aggregates suggest trying, session-wide (Report::hints) and per profiled function
// (FunctionProfile::hints). Thresholds are fixed here so that reports are comparable between runs.
#pragma once

#include <cstdint>
#include <string>

#include "report/model/report_model.hpp"

namespace gpufl::report {

inline constexpr double kLowMemoryEfficiencyPct = 50.0;  // ideal / actual global sectors
inline constexpr double kLowWarpEfficiencyPct =
    90.0;  // active threads per warp instruction / warp size
inline constexpr double kLaunchBoundMedianNs =
    10e3;  // kernels this short are dominated by launch cost
inline constexpr double kLaunchBoundBusyPct = 50.0;
inline constexpr uint64_t kLaunchBoundMinLaunches = 100;
inline constexpr double kIdleGpuBusyPct = 25.0;
inline constexpr double kFullOccupancy = 0.995;   // below this, occupancy hints apply
inline constexpr double kThrottleHintPct = 10.0;  // share of samples with a power/thermal reason
inline constexpr size_t kHintGroups = 10;  // kernel groups (by GPU time) considered for hints
inline constexpr double kHintGroupMinSharePct = 1.0;  // ... with at least this share of GPU time

// The device a kernel ran on (its id), else the first one; nullptr when none is known.
const DeviceInfo* deviceOf(const Report& report, uint32_t id);
// "occupancy 83.3% is limited by shared memory (...) — <what to change>"; empty when the group has
// no occupancy or no limiting resource. The group must have an occupancy.
std::string occupancyAdvice(const KernelGroup& group, const DeviceInfo* device);

// How the grid fills the GPU when that costs time: SMs with no block, one partial wave (each SM
// holding few of the blocks it could), or a mostly empty last wave (tail effect); with the numbers
// and what to change (for a library kernel, its inputs). Empty when the grid fills the GPU.
std::string gridFillAdvice(const KernelGroup& group, const DeviceInfo* device);

// Fills report.hints and every FunctionProfile's hints from the other aggregates.
void addHints(Report& report);

}  // namespace gpufl::report
