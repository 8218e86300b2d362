// How many scope records survive a steady high rate: a thread opens two nested scopes per step at
// STEPS_PER_S for SECONDS (a spin wait paces it), under a real session, and the session's own
// accounting (session_end: scopes written, scope records dropped) is read back from the log. The
// writer must keep up with its 8192-record thread buffers by itself (runtime: nextRoundWait).
// Usage: bench_scope_rate [STEPS_PER_S=50000] [SECONDS=1] [PREFIX=/tmp/gpufl_bench_scope_rate]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gpufl/gpufl.hpp"

namespace {

// The number after "key": in the last session_end line of the scope log; -1 when absent.
long long lastEndField(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line, end;
  while (std::getline(in, line))
    if (line.find("\"type\":\"session_end\"") != std::string::npos) end = line;
  const size_t at = end.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atoll(end.c_str() + at + key.size() + 3);
}

}  // namespace

int main(int argc, char** argv) {
  const double steps_per_s = argc > 1 ? std::atof(argv[1]) : 50000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1;
  const std::string prefix = argc > 3 ? argv[3] : "/tmp/gpufl_bench_scope_rate";
  std::remove((prefix + ".scope.log").c_str());
  gpufl::InitOptions opts;
  opts.app_name = "bench_scope_rate";
  opts.log_path = prefix;
  opts.system_sample_rate_ms = 0;
  gpufl::init(opts);  // false without a GPU; scopes are recorded all the same
  using Clock = std::chrono::steady_clock;
  const auto step =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / steps_per_s));
  const long steps = static_cast<long>(steps_per_s * seconds);
  auto next = Clock::now();
  for (long i = 0; i < steps; ++i) {
    next += step;
    GFL_SCOPE("step") {
      GFL_SCOPE("inner") {
        while (Clock::now() < next) {
        }
      }
    }
  }
  gpufl::shutdown();
  const long long written = lastEndField(prefix + ".scope.log", "scopes");
  const long long dropped = lastEndField(prefix + ".scope.log", "scope");
  std::printf(
      "bench_scope_rate: %.0f steps/s x %.1f s = %ld steps (%ld scopes): %lld written, %lld "
      "dropped\n",
      steps_per_s, seconds, steps, 2 * steps, written, dropped);
  return written == 2 * steps ? 0 : 1;
}
