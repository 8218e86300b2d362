#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli.hpp"

namespace gpufl::cli {

// After `gpufl trace`: where the logs are (the program's and its CUDA child processes') and the top
// of the report. With `since`, logs not written to since then (an earlier run's, under the same
// prefix) are left out. The program's own prefix comes first, then children by pid.
// `no_driver` (from nvidiaDriverMissing) names the cause when nothing was written.
void printTraceSummary(const std::string& prefix, int exit_code, CliContext& ctx,
                       std::optional<std::filesystem::file_time_type> since = std::nullopt,
                       const std::string& no_driver = "");

// Why the NVIDIA driver cannot be loaded ("libcuda.so.1: cannot open shared object file ..."), or
// "" when it can. Without it CUDA never starts, so the injected gpufl is never loaded.
std::string nvidiaDriverMissing();

}  // namespace gpufl::cli
