// Uses GPU Flight as a user of the installed package does: only <gpufl/gpufl.hpp> and gpufl::gpufl.
//
//   gpufl_consumer <log prefix> [gpu-ok]
//
// Without a GPU (or without the CUDA backend) init() returns false and scopes are still recorded;
// "gpu-ok" also accepts true (a build with CUDA on a machine that may have a GPU).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <gpufl/gpufl.hpp>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpufl_consumer <log prefix> [gpu-ok]\n");
    return 2;
  }
  const std::string prefix = argv[1];
  const bool gpu_ok = argc > 2 && std::strcmp(argv[2], "gpu-ok") == 0;

  gpufl::InitOptions opts;
  opts.app_name = "gpufl_consumer";
  opts.log_path = prefix;
  opts.system_sample_rate_ms = 0;
  const bool gpu = gpufl::init(opts);
  GFL_SCOPE("consumer_step", "package") {
    volatile int sink = 0;
    for (int i = 0; i < 1000; ++i) sink = sink + i;
  }
  gpufl::shutdown();

  std::printf("gpufl %s: gpu profiling %s\n", gpufl::kVersion, gpu ? "on" : "off");
  if (gpu && !gpu_ok) {
    std::fprintf(stderr, "FAIL: init() returned true on a build/machine without a GPU\n");
    return 1;
  }
  const std::filesystem::path scope_log = prefix + ".scope.log";
  std::error_code ec;
  if (!std::filesystem::exists(scope_log, ec) || std::filesystem::file_size(scope_log, ec) == 0) {
    std::fprintf(stderr, "FAIL: %s missing or empty\n", scope_log.c_str());
    return 1;
  }
  std::printf("scope log: %s\n", scope_log.c_str());
  return 0;
}
