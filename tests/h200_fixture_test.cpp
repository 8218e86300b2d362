// The report on real sessions recorded on the H200 (tests/data/h200, written by
// scripts/gpu-run.sh): what the seeds promise must be there, with the numbers the hardware gave
// (and Nsight Compute agreed with).
#include <gtest/gtest.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "log/log_writer.hpp"
#include "log/reader.hpp"
#include "report/report.hpp"

namespace {

std::string reportOf(const std::string& name) {
  gpufl::report::ReportOptions options;
  options.generated_at = "pinned";
  auto out = gpufl::report::reportFromPrefix(std::string(GPUFL_TEST_DATA_DIR) + "/h200/" + name, "",
                                             options, false);
  EXPECT_TRUE(out.ok) << out.error;
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.front();
  return out.text;
}

void expectContains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "missing: " << needle;
}

TEST(H200Fixtures, CoalescingPairShowsTheSeedsSectorCounts) {
  std::string text = reportOf("memory_coalescing");
  expectContains(text, "GPU Device:           NVIDIA H200");
  expectContains(text, "SMs:                132");
  // Seed 03: 69,468,160 global sectors vs 10,518,528 ideal for row-per-thread; col-per-thread is
  // ideal.
  expectContains(text, "Global Sectors:             69,468,160");
  expectContains(text, "Ideal Sectors:              10,518,528");
  expectContains(text, "Memory Efficiency:               15.1%");
  expectContains(text, "Memory Efficiency:              100.0%");
  expectContains(text, "durations include profiling");
}

TEST(H200Fixtures, DivergenceKernelsShowTheExpectedActiveThreads) {
  std::string text = reportOf("sass_divergence");
  expectContains(text, "32.0 / 32 (100.0%)");  // uniformWork
  expectContains(text, "16.3 / 32");           // branchByWarpLane, earlyExit
  expectContains(text, "8.2 / 32");            // branchByWarpQuad
}

TEST(H200Fixtures, SharedMemoryLimitedReductionAndItsFix) {
  std::string text = reportOf("occupancy_reduction");
  expectContains(text, "block_reduce_naive");
  expectContains(text, "block_reduce_optimized");
  expectContains(text, "Limiting Resource:  warps");
}

// The reductions with per-kernel ranges (GPUFL_RANGE_PER_KERNEL=1, deep_truth's run 2026-11-29):
// a row per scope and kernel, 20 launches each, durations of the kernels alone (~20 us each).
TEST(H200Fixtures, PerKernelRangesOfTheReductions) {
  std::string text = reportOf("range_per_kernel");
  expectContains(text, "one range per kernel launch in the scope");
  expectContains(text, "    naive  kernel block_reduce_naive  (20 launches)");
  expectContains(text, "    optimized  kernel block_reduce_optimized  (20 launches)");
  // gpu__time_duration.sum over the naive kernel's 20 launches (419,232 ns), with its unit.
  expectContains(text, "gpu__time_duration.sum                                        419.23 us");
  EXPECT_EQ(text.find("WaitNs kernel per range"), std::string::npos);
}

// PyTorch's kernels are cuBLAS's and ATen's: no advice to recompile them, and the grid sentence is
// true (256 blocks on 132 SMs leave no SM idle: one partial wave).
TEST(H200Fixtures, PyTorchLibraryKernelsGetAdviceOnTheirCalls) {
  std::string text = reportOf("pytorch_train_trace");
  EXPECT_EQ(text.find("__launch_bounds__"), std::string::npos) << text;
  EXPECT_EQ(text.find("maxrregcount"), std::string::npos) << text;
  EXPECT_EQ(text.find("most SMs sit idle"), std::string::npos) << text;
  // Sentences are wrapped: read them as one line.
  std::string flat;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      flat += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    flat += ' ';
  }
  text = flat;
  expectContains(text, "256 blocks on 132 SMs make one partial wave: each SM runs 1-2 blocks");
  expectContains(text, "are cuBLAS/CUTLASS/cuDNN kernels. Change the calls, not the kernels");
  expectContains(text, "are PyTorch kernels. Change the calls, not the kernels");
  expectContains(text, "It is a cuBLAS/CUTLASS/cuDNN kernel, so change the call");
}

TEST(H200Fixtures, PyTorchTrainingLoopUnderGpuflTrace) {
  std::string text = reportOf("pytorch_train_trace");
  expectContains(text, "Memory Transfer Summary");
  expectContains(text, "Utilization:");
  expectContains(text, "Power:");
}

// Three cuBLAS sm80_xmma_gemm variants and six at::native::multi_tensor_apply_kernel instances
// are among the top ten: shortened one by one they collapsed into two names.
TEST(H200Fixtures, PyTorchTopKernelsKeepDistinctNames) {
  std::string text = reportOf("pytorch_train_trace");
  size_t at = text.find("Top 10 Kernels by Total GPU Time");
  ASSERT_NE(at, std::string::npos);
  // The header's "Kernel" column, last, says where each row's name starts.
  const size_t header = text.find("\n  #", at) + 1;
  const size_t name_at = text.find("Kernel", header) - header;
  std::set<std::string> names;
  int rows = 0;
  for (int n = 1; n <= 10; ++n) {  // rows "  <n>   <calls> ... <name>"
    const std::string row = "\n  " + std::to_string(n) + std::string(n < 10 ? 3 : 2, ' ');
    size_t line = text.find(row, at);
    ASSERT_NE(line, std::string::npos) << "row " << n;
    const std::string whole = text.substr(line + 1, text.find('\n', line + 1) - line - 1);
    ASSERT_GT(whole.size(), name_at) << whole;
    names.insert(whole.substr(name_at));
    ++rows;
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(rows)) << text.substr(at, 2000);
}

// gpufl report --wide: the same table with every name whole (none elided).
TEST(H200Fixtures, WideReportPrintsKernelNamesWhole) {
  gpufl::report::ReportOptions options;
  options.generated_at = "pinned";
  options.wide_names = true;
  auto wide = gpufl::report::reportFromPrefix(
      std::string(GPUFL_TEST_DATA_DIR) + "/h200/pytorch_train_trace", "", options, false);
  ASSERT_TRUE(wide.ok) << wide.error;
  auto topOf = [](const std::string& text) {
    size_t at = text.find("Top 10 Kernels by Total GPU Time");
    return text.substr(at, text.find("Kernel Details", at) - at);
  };
  const std::string narrow_top = topOf(reportOf("pytorch_train_trace"));
  const std::string wide_top = topOf(wide.text);
  EXPECT_NE(narrow_top.find("..."), std::string::npos);
  EXPECT_EQ(wide_top.find("..."), std::string::npos) << wide_top;
  expectContains(wide_top, "multi_tensor_apply_kernel<");
}

// A PyTorch loop traced on the H200 with GPUFL_KERNEL_BLOCKS=1 (scripts/gpu-run.sh size): the
// runtime's own blocks (two, written at its flushes) give every kernel session_end counted.
TEST(H200Fixtures, KernelBlocksWrittenByTheRuntimeReadWhole) {
  const std::string text = reportOf("pytorch_blocks");  // no warnings: nothing lost or miscounted
  expectContains(text, "Total Kernels:        9,934");
  expectContains(text, "Unique Kernels:       26");
}

std::string zstdBytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string plain = text.str();
  std::string packed(ZSTD_compressBound(plain.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), plain.data(), plain.size(), 3));
  return packed;
}

// The real PyTorch trace rewritten with kernel blocks (the reader driving a writer, as `gpufl cat`
// does): the report is the same to the byte, and the device log compresses to much less.
TEST(H200Fixtures, KernelBlocksGiveTheSameReportInFewerBytes) {
  namespace fs = std::filesystem;
  const std::string source = std::string(GPUFL_TEST_DATA_DIR) + "/h200/pytorch_train_trace";
  const fs::path dir = fs::temp_directory_path() / ("gpufl_blocks_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string blocks = (dir / "pytorch_train_trace").string();
  gpufl::log::LogWriterOptions o;
  o.prefix = blocks;
  o.rotate_bytes = 0;
  o.kernel_blocks = true;
  std::string error;
  {
    auto writer = gpufl::log::LogWriter::open(o, &error);
    ASSERT_TRUE(writer) << error;
    const auto read = gpufl::log::readPrefix(source, {}, *writer);
    ASSERT_TRUE(read.warnings.empty());
    writer->close();
  }
  gpufl::report::ReportOptions options;
  options.generated_at = "pinned";
  auto a = gpufl::report::reportFromPrefix(source, "", options, false);
  auto b = gpufl::report::reportFromPrefix(blocks, "", options, false);
  ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
  EXPECT_TRUE(b.warnings.empty());
  std::string b_text = b.text;
  for (size_t at; (at = b_text.find(blocks)) != std::string::npos;)
    b_text.replace(at, blocks.size(), source);
  EXPECT_EQ(a.text, b_text);
  const size_t lines_zst = zstdBytesOf(source + ".device.log").size();
  const size_t blocks_zst = zstdBytesOf(blocks + ".device.log").size();
  EXPECT_LT(blocks_zst * 10, lines_zst * 7) << blocks_zst << " vs " << lines_zst;
  fs::remove_all(dir);
}

}  // namespace

// The "Why Is This Kernel Slow" section of a text report ("" when absent).
std::string cardsOf(const std::string& text) {
  size_t begin = text.find("Why Is This Kernel Slow");
  size_t end = text.find("Memory Transfer Summary", begin);
  return begin == std::string::npos ? "" : text.substr(begin, end - begin);
}

TEST(H200Fixtures, CoalescingCardPutsCoalescingFirst) {
  std::string cards = cardsOf(reportOf("memory_coalescing"));
  ASSERT_FALSE(cards.empty());
  size_t row = cards.find("1. matmul_row_per_thread (2,1,1)x(256,1,1)");
  size_t col = cards.find("2. matmul_col_per_thread");
  ASSERT_NE(row, std::string::npos);
  ASSERT_NE(col, std::string::npos);
  std::string card = cards.substr(row, col - row);
  expectContains(card, "Memory Eff.:    15.1% (10,518,528 ideal of 69,468,160 global sectors)");
  expectContains(card, "Warp Eff.:      100.0%");
  // 69,468,160 x 32 B / 1 launch over the instrumented 250.23 ms; peak 2 x 3.201 GHz x 6016 bit
  // / 8.
  expectContains(card, "Global Traffic: ~8.88 GB/s (0.2% of the 4.81 TB/s DRAM peak at most)");
  expectContains(card, "instrumented");
  expectContains(card, "Clocks/Power:   SM 1980 MHz");
  // Launched once under PcSamplingWithSass: SASS metrics and PC sampling shared the launch (seed 03
  // shows both), and the report says where the samples came from.
  expectContains(card, "Top Stalls:     Wait 40.1%, Wait (idle) 38.3%");
  expectContains(card, "all on the launch SASS metrics instrumented");
  expectContains(card, "Try First:      Coalesce global memory accesses first: only 15.1%");
  expectContains(card, "Then:           Fill the GPU: 2 blocks run on 132 SMs: 130 SMs get no");
  expectContains(cards.substr(col), "Memory Eff.:    100.0%");
}

TEST(H200Fixtures, TraceCardsShowClocksAndPower) {
  for (const char* name : {"kernel_zoo_trace", "pytorch_train_trace"}) {
    std::string cards = cardsOf(reportOf(name));
    ASSERT_FALSE(cards.empty()) << name;
    expectContains(cards, "Clocks/Power:   SM 1980 MHz, power ");
    expectContains(cards, "Throttle:       ");
    expectContains(cards, "Try First:      ");
  }
  // Kernels shorter than the 100 ms sample period get the nearest sample, and say so.
  expectContains(cardsOf(reportOf("pytorch_train_trace")), "(nearest sample, ");
  // 2 blocks of matmul_col_per_thread on the H200's 132 SMs (from the trace's device record).
  expectContains(cardsOf(reportOf("kernel_zoo_trace")),
                 "Try First:      Fill the GPU: 2 blocks run on 132 SMs: 130 SMs get no");
}

// Seed 01's case in C++ (matmul_tiling_demo, PcSamplingWithSass, n = 2048): the naive kernel
// reads 3.4x the ideal sectors (4,565,499,904 vs 1,342,701,568 per launch, ncu's count; x3 SASS
// launches here), requests more than the DRAM peak (L2 hits), and has a stall histogram from its
// PC-sampled launches.
TEST(H200Fixtures, NaiveMatmulCardAndStallsFromOneDeepRun) {
  std::string text = reportOf("matmul_tiling");
  std::string cards = cardsOf(text);
  size_t naive = cards.find("1. matmul_naive (128,128,1)x(16,16,1)");
  size_t tiled = cards.find("2. matmul_tiled");
  ASSERT_NE(naive, std::string::npos);
  ASSERT_NE(tiled, std::string::npos);
  std::string card = cards.substr(naive, tiled - naive);
  expectContains(card, "Memory Eff.:    29.4% (4,028,104,704 ideal of 13,696,499,712 global");
  expectContains(card, "x the DRAM peak of 4.81 TB/s, so mostly L2");
  expectContains(card, "Try First:      Coalesce global memory accesses first: only 29.4%");
  expectContains(card, "Then:           Reuse data on chip");
  expectContains(card, "7 launches uninstrumented");
  expectContains(cards.substr(tiled), "Memory Eff.:    100.0% (404,226,048 ideal of 404,226,048");
  expectContains(text, "matmul_naive  (");
  expectContains(text, "stall samples)");
  expectContains(text, "LG Throttle");
}
