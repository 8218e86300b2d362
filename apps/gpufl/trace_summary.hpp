#pragma once

#include <string>

#include "cli.hpp"

namespace gpufl::cli {

// After `gpufl trace`: where the logs are (the program's and its CUDA child processes') and the top
// of the report.
void printTraceSummary(const std::string& prefix, int exit_code, CliContext& ctx);

}  // namespace gpufl::cli
