#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli.hpp"

namespace gpufl::cli {

// After `gpufl trace`: where the logs are (the program's and its CUDA child processes') and the top
// of the report. With `since`, logs not written to since then (an earlier run's, under the same
// prefix) are left out. The program's own prefix comes first, then children by pid.
void printTraceSummary(const std::string& prefix, int exit_code, CliContext& ctx,
                       std::optional<std::filesystem::file_time_type> since = std::nullopt);

}  // namespace gpufl::cli
