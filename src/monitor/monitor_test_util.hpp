// Helpers of the monitor's tests: a temporary directory and a two-GPU NVML script.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gpufl::monitor::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpufl_monitor_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string writeFile(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// Two GPUs; two ticks, the second repeating. GPU 1 only in the second tick.
inline const char* kTwoGpuScript =
    "# a scripted NVML: first the GPUs, then one line per tick\n"
    "{\"devices\": [{\"name\": \"NVIDIA H200\", \"uuid\": \"GPU-aaaa\"}, "
    "{\"name\": \"NVIDIA H200\", \"uuid\": \"GPU-bbbb\"}]}\n"
    "{\"samples\": [{\"gpu\": 0, \"util_gpu\": 10, \"temp_c\": 40, \"pcie_rx_kbps\": 5}]}\n"
    "\n"
    "{\"samples\": [{\"gpu\": 0, \"util_gpu\": 87, \"util_mem\": 40, \"mem_used_bytes\": "
    "50000000000, "
    "\"mem_total_bytes\": 150000000000, \"temp_c\": 61, \"power_mw\": 456789, \"power_limit_mw\": "
    "700000, \"energy_mj\": 9876543210, \"clk_sm\": 1980, \"clk_mem\": 2619, \"clk_gfx\": 1975, "
    "\"throttle\": 5}, {\"gpu\": 1, \"util_gpu\": 3}], "
    "\"processes\": [{\"gpu\": 0, \"pid\": 4242, \"used_bytes\": 3221225472}]}\n";

}  // namespace gpufl::monitor::testing
