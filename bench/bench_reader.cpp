// gpufl_bench_reader: how fast readPrefix turns logs into events, on one core.
//   gpufl_bench_reader [--kernels N] [--dir D] [--runs R] [--keep]   generates N kernel events
//   (default 2,000,000) in the
//                                                          documented format, plain and as a .zst
//                                                          segment
//   gpufl_bench_reader --prefix P [--runs R]               reads an existing prefix (e.g. from
//   gpufl_gen_session)
// Prints the best of R runs (default 3): events/s (all records delivered) and MB/s of uncompressed
// text. The page cache is warm after the first run; this measures parsing, not the disk.
#include <zstd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>

#include "log/line_source.hpp"
#include "log/reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct CountingVisitor : gpufl::EventVisitor {
  uint64_t kernels = 0, others = 0, checksum = 0;
  void onKernel(const gpufl::KernelEvent& e) override {
    ++kernels;
    checksum += static_cast<uint64_t>(e.end_ns) ^ e.correlation_id;
  }
  void onKernelDef(const gpufl::KernelDef&) override { ++others; }
  void onSessionStart(const gpufl::SessionStart&) override { ++others; }
  void onSessionEnd(const gpufl::SessionEnd&) override { ++others; }
};

// Kernel events as the writer lays them out: absolute start/corr every 1024 events, differences
// between.
std::string generate(uint64_t kernels) {
  std::mt19937_64 rng(42);
  const std::string sid = "5eed0001";
  std::string text =
      R"j({"type":"session_start","sid":"5eed0001","schema":1,"session_id":"5eed0001-0000-4000-8000-000000000001","app":"bench","pid":1,"host":"h","version":"0.1.0","engine":"None","start_ns":1000,"start_unix_ns":1700000000000000000,"options":{},"devices":[]})j"
      "\n";
  for (int k = 1; k <= 64; ++k) {
    text +=
        R"j({"type":"kernel_def","sid":"5eed0001","k":)j" + std::to_string(k) +
        R"j(,"name":"_Z6kernelILi)j" + std::to_string(k) + R"j(EEvPf","demangled":"void kernel<)j" +
        std::to_string(k) +
        R"j(>(float*)","device":0,"context":1,"grid":"(1024,1,1)","block":"(256,1,1)","num_regs":32,"static_shared_bytes":0,"dyn_shared_bytes":0,"local_bytes":0,"occupancy":1,"reg_occupancy":1,"smem_occupancy":1,"warp_occupancy":1,"block_occupancy":1,"limiting_resource":"none","max_active_blocks":8,"waves":0.97})j"
        "\n";
  }
  int64_t start = 5'000'000'000'000;
  uint64_t corr = 100;
  char line[256];
  for (uint64_t i = 0; i < kernels; ++i) {
    const int64_t dt = static_cast<int64_t>(rng() % 40000) - 2000;  // sometimes negative
    const uint64_t dcorr = 1 + rng() % 2;
    const int64_t dur = 1500 + static_cast<int64_t>(rng() % 90000);
    const unsigned k = 1 + static_cast<unsigned>(rng() % 64);
    start += dt;
    corr += dcorr;
    int n;
    if (i % 1024 == 0) {
      n = std::snprintf(
          line, sizeof line,
          R"j({"type":"kernel_event","sid":"%s","k":%u,"stream":7,"scope":%u,"dur_ns":%lld,"start_ns":%lld,"corr":%llu})j"
          "\n",
          sid.c_str(), k, k % 5, static_cast<long long>(dur), static_cast<long long>(start),
          static_cast<unsigned long long>(corr));
    } else {
      n = std::snprintf(
          line, sizeof line,
          R"j({"type":"kernel_event","sid":"%s","k":%u,"stream":7,"scope":%u,"dur_ns":%lld,"dt_ns":%lld,"dcorr":%llu})j"
          "\n",
          sid.c_str(), k, k % 5, static_cast<long long>(dur), static_cast<long long>(dt),
          static_cast<unsigned long long>(dcorr));
    }
    text.append(line, static_cast<size_t>(n));
  }
  text += R"j({"type":"session_end","sid":"5eed0001","end_ns":9000000000000,"kernels":)j" +
          std::to_string(kernels) + "}\n";
  return text;
}

void writeFile(const std::string& path, std::string_view data) {
  std::ofstream(path, std::ios::binary)
      .write(data.data(), static_cast<std::streamsize>(data.size()));
}

uint64_t textBytes(const gpufl::log::ReadResult& r) {
  uint64_t total = 0;
  for (const auto& file : r.files) {
    std::string error;
    auto source = gpufl::log::LineSource::openFile(file, gpufl::log::kDefaultMaxLineBytes, &error);
    gpufl::log::Line line;
    while (source && source->next(line)) {
    }
    if (source) total += source->decodedBytes();
  }
  return total;
}

void bench(const char* label, const std::string& prefix, int runs) {
  double best = 1e30;
  CountingVisitor last;
  gpufl::log::ReadResult result;
  for (int i = 0; i < runs; ++i) {
    CountingVisitor v;
    const auto t0 = Clock::now();
    result = gpufl::log::readPrefix(prefix, {}, v);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s < best) best = s;
    last = v;
  }
  const auto t0 = Clock::now();
  const auto sessions = gpufl::log::listSessions(prefix);
  const double scan_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double mb = static_cast<double>(textBytes(result)) / 1e6;
  std::printf(
      "%-6s %10llu kernels %8llu other records  %7.3f s  %6.2f M kernel events/s  %7.1f MB/s text"
      "  (session scan alone %.3f s; %llu warnings)\n",
      label, static_cast<unsigned long long>(last.kernels),
      static_cast<unsigned long long>(last.others), best,
      static_cast<double>(last.kernels) / best / 1e6, mb / best, scan_s,
      static_cast<unsigned long long>(result.warning_count));
  (void)sessions;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t kernels = 2'000'000;
  int runs = 3;
  std::string dir = std::filesystem::temp_directory_path().string(), prefix;
  bool keep = false;
  for (int i = 1; i < argc; i += 2) {
    const std::string_view arg = argv[i], value = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--keep") {
      keep = true;
      --i;
      continue;
    }
    if (arg == "--kernels")
      std::from_chars(value.data(), value.data() + value.size(), kernels);
    else if (arg == "--runs")
      std::from_chars(value.data(), value.data() + value.size(), runs);
    else if (arg == "--dir")
      dir = value;
    else if (arg == "--prefix")
      prefix = value;
    else {
      std::fprintf(
          stderr, "usage: %s [--kernels N] [--dir D] [--runs R] [--keep] | --prefix P [--runs R]\n",
          argv[0]);
      return 2;
    }
  }
  if (!prefix.empty()) {
    bench("prefix", prefix, runs);
    return 0;
  }
  const std::string text = generate(kernels);
  const std::string plain = dir + "/gpufl_bench_plain", zst = dir + "/gpufl_bench_zst";
  writeFile(plain + ".device.log", text);
  std::string compressed(ZSTD_compressBound(text.size()), '\0');
  compressed.resize(
      ZSTD_compress(compressed.data(), compressed.size(), text.data(), text.size(), 3));
  writeFile(zst + ".device.000001.log.zst", compressed);
  std::printf("input: %.1f MB of text, %.1f MB as zstd level 3 (%.1f bytes per kernel event)\n",
              static_cast<double>(text.size()) / 1e6, static_cast<double>(compressed.size()) / 1e6,
              static_cast<double>(compressed.size()) / static_cast<double>(kernels));
  bench("plain", plain, runs);
  bench("zstd", zst, runs);
  if (!keep) {
    std::filesystem::remove(plain + ".device.log");
    std::filesystem::remove(zst + ".device.000001.log.zst");
  }
  return 0;
}
