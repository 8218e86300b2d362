// On a GPU: gpufl::bench times what it is given (a kernel that spins a known number of SM clock
// cycles), graph replay times a tiny kernel below what launch-by-launch events can see, an L2 flush
// runs, and the result is a `benchmark` record of the session. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gpufl/bench.hpp"
#include "gpufl/gpufl.hpp"

namespace {

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void addOne(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

bool haveGpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

TEST(BenchGpu, SpinKernelTakesItsCycles) {
  if (!haveGpu()) GTEST_SKIP() << "no GPU";
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  const long long cycles = 200000;  // ~100 us at ~2 GHz
  gpufl::BenchOptions o;
  o.name = "spin";
  o.shape = "200000 cycles";
  o.stream = s;
  o.warmup_ms = 20;
  o.reps = 50;
  const gpufl::BenchResult r = gpufl::bench([&] { spin<<<1, 1, 0, s>>>(cycles); }, o);
  ASSERT_TRUE(r.ok) << r.error;
  std::printf("spin: median %.4f ms p10 %.4f p90 %.4f (clock attribute %d kHz: %.4f ms)\n",
              r.median_ms, r.p10_ms, r.p90_ms, khz, cycles / (khz * 1.0));
  // At least the cycles at the top clock, and not wildly more (a throttled clock or launch cost).
  EXPECT_GE(r.median_ms, 0.95 * cycles / khz);
  EXPECT_LT(r.median_ms, 3.0 * cycles / khz);
  EXPECT_EQ(r.reps, 50u);
  cudaStreamDestroy(s);
}

TEST(BenchGpu, GraphReplayAmortisesTheLaunchOfATinyKernel) {
  if (!haveGpu()) GTEST_SKIP() << "no GPU";
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  float* x = nullptr;
  ASSERT_EQ(cudaMalloc(&x, 1024 * sizeof(float)), cudaSuccess);
  gpufl::BenchOptions o;
  o.name = "addOne";
  o.shape = "1024";
  o.stream = s;
  o.reps = 50;
  o.bytes = 8.0 * 1024;
  const gpufl::BenchResult events = gpufl::bench([&] { addOne<<<4, 256, 0, s>>>(x, 1024); }, o);
  o.graph = true;
  const gpufl::BenchResult graph = gpufl::bench([&] { addOne<<<4, 256, 0, s>>>(x, 1024); }, o);
  ASSERT_TRUE(events.ok) << events.error;
  ASSERT_TRUE(graph.ok) << graph.error;
  std::printf("addOne: events %.2f us, graph %.2f us per op (%llu ops per replay)\n",
              events.median_ms * 1e3, graph.median_ms * 1e3,
              static_cast<unsigned long long>(graph.ops_per_rep));
  for (const std::string& w : events.warnings) std::printf("  events warning: %s\n", w.c_str());
  EXPECT_GT(graph.ops_per_rep, 1u);
  EXPECT_LT(graph.median_ms, events.median_ms);
  o.graph = false;
  o.flush_l2 = true;
  const gpufl::BenchResult cold = gpufl::bench([&] { addOne<<<4, 256, 0, s>>>(x, 1024); }, o);
  ASSERT_TRUE(cold.ok) << cold.error;
  EXPECT_TRUE(cold.flush_l2);
  cudaFree(x);
  cudaStreamDestroy(s);
}

TEST(BenchGpu, TheResultIsABenchmarkRecord) {
  if (!haveGpu()) GTEST_SKIP() << "no GPU";
  gpufl::InitOptions init;
  init.app_name = "bench_gpu";
  init.log_path = "./bench_gpu";
  init.system_sample_rate_ms = 0;
  std::remove("./bench_gpu.device.log");
  gpufl::init(init);
  gpufl::BenchOptions o;
  o.name = "spin_recorded";
  o.reps = 20;
  const gpufl::BenchResult r = gpufl::bench([] { spin<<<1, 1>>>(20000); }, o);
  gpufl::shutdown();
  ASSERT_TRUE(r.ok) << r.error;
  std::ifstream log("./bench_gpu.device.log");
  std::string line, found;
  while (std::getline(log, line))
    if (line.find("\"type\":\"benchmark\"") != std::string::npos) found = line;
  EXPECT_NE(found.find("\"name\":\"spin_recorded\""), std::string::npos) << found;
  EXPECT_NE(found.find("\"reps\":20"), std::string::npos) << found;
}

}  // namespace
