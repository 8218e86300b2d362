// Rendering of one occupancy calculation for `gpufl occupancy`: the text breakdown, the JSON
// object, and the one-line "what to change" hint for the limiting resource.
#pragma once

#include <string>

#include "core/arch_limits.hpp"
#include "core/occupancy.hpp"

namespace gpufl::cli {

// What to change to raise occupancy (or why nothing needs to change), as one sentence.
std::string occupancyHint(const ArchLimits& limits, const OccupancyInput& input,
                          const OccupancyDetail& detail);

std::string occupancyText(const ArchLimits& limits, const OccupancyInput& input,
                          const OccupancyDetail& detail);

// One JSON object (with trailing newline); field names follow the kernel_def record where they
// overlap.
std::string occupancyJson(const ArchLimits& limits, const OccupancyInput& input,
                          const OccupancyDetail& detail);

}  // namespace gpufl::cli
