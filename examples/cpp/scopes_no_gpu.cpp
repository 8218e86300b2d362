// GPU Flight without a GPU: user scopes (nested, tagged, on two threads) recorded to NDJSON, then
// the report.
//
//   ./scopes_no_gpu [log_prefix]
//   default prefix ./scopes_no_gpu -> scopes_no_gpu.{device,scope,system}.log
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "gpufl/gpufl.hpp"

namespace {

double busyWork(int n) {
  double acc = 0;
  for (int i = 1; i <= n; ++i) acc += std::sqrt(static_cast<double>(i));
  return acc;
}

}  // namespace

int main(int argc, char** argv) {
  gpufl::InitOptions opts;
  opts.app_name = "scopes_no_gpu";
  if (argc > 1) opts.log_path = argv[1];
  const bool gpu =
      gpufl::init(opts);  // false here: no CUDA backend or no GPU; scopes are still recorded
  std::printf("gpu profiling: %s, recording: %s\n", gpu ? "on" : "off",
              gpufl::isRecording() ? "yes" : "no");

  double sink = 0;
  GFL_SCOPE("load") {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (int step = 0; step < 3; ++step) {
    GFL_SCOPE("train_step", "epoch0") {
      {
        gpufl::Scope forward("forward", "math");  // RAII, with a tag
        sink += busyWork(200000);
      }
      gpufl::Scope backward("backward", "math");
      sink += busyWork(400000);
    }
  }
  std::thread worker([&] {
    GFL_SCOPE("background_io") {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
  });
  worker.join();

  gpufl::shutdown();
  gpufl::generateReport();  // the session just recorded, printed to stdout
  return sink > 0 ? 0 : 1;
}
