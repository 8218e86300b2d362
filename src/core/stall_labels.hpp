// Warp stall reasons of PC sampling, for people: the one table of labels. The report, the
// analyzer (through the extension) and any other view use it, so a reason reads the same
// everywhere.
#pragma once

#include <string>
#include <string_view>

namespace gpufl {

// "long_scoreboard" -> "Long Scoreboard", "lg_throttle_not_issued" -> "LG Throttle (idle)" (the
// "_not_issued" twin: sampled while the scheduler issued nothing, so the stall cost time).
// Accepts CUPTI's full counter names ("smsp__pcsamp_warps_issue_stalled_mio_throttle") too.
// Unknown reasons are title-cased word by word, never dropped; "" gives "(unknown)".
std::string stallLabel(std::string_view reason);

}  // namespace gpufl
