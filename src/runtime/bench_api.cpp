// gpufl::bench (include/gpufl/bench.hpp): the harness on the CUDA device of the stream, its result
// recorded into the recording session.
#include "gpufl/bench.hpp"
#include "runtime/bench_loop.hpp"

namespace gpufl {

BenchResult bench(const std::function<void()>& fn, const BenchOptions& options) {
  try {
    std::string error;
    auto device = runtime::watchWithNvml(runtime::makeCudaBenchDevice(options.stream, &error));
    if (!device) {
      BenchResult r;
      r.name = options.name;
      r.error = error;
      return r;
    }
    BenchResult r = runtime::runBench(*device, fn, options);
    if (r.ok && options.record) recordBenchmark(r);
    return r;
  } catch (const std::exception& e) {
    BenchResult r;
    r.error = std::string("gpufl::bench: ") + e.what();
    return r;
  } catch (...) {
    BenchResult r;
    r.error = "gpufl::bench: unknown exception";
    return r;
  }
}

}  // namespace gpufl
