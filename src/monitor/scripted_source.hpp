// A GpuSource that replays readings from a file instead of NVML (`gpufl monitor --nvml-script`), so
// that tests on machines without a GPU check every metric against known values.
//
// The file is NDJSON, one object per line (blank lines and lines starting with '#' are skipped):
//   line 1, the GPUs:   {"devices": [{"name": "NVIDIA H200", "uuid": "GPU-..."}, ...]}
//              or why NVML is off: {"open_error": "NVML found no GPU"}
//   then one line per tick, the last one repeating once the script runs out:
//     {"samples": [{"gpu": 0, "util_gpu": 87, "mem_used_bytes": 1024, ...}],
//      "processes": [{"gpu": 0, "pid": 4242, "used_bytes": 4096}]}
// Sample fields have the system log's names (docs/log-format.md: util_gpu, util_mem,
// mem_used_bytes, mem_total_bytes, temp_c, power_mw, power_limit_mw, energy_mj, clk_sm, clk_mem,
// clk_gfx, pcie_rx_kbps, pcie_tx_kbps, throttle) and NVML's units. An unknown field, a wrong type
// or a GPU index not in "devices" is an error naming the file, the line and the field.
#pragma once

#include <memory>
#include <string>

#include "monitor/gpu_source.hpp"

namespace gpufl::monitor {

// nullptr and *error set when the file cannot be read or is not a valid script.
std::unique_ptr<GpuSource> loadScriptedSource(const std::string& path, std::string* error);

}  // namespace gpufl::monitor
