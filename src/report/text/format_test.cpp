#include "report/text/format.hpp"

#include <gtest/gtest.h>

#include "report/text/short_names.hpp"

namespace gpufl::report {
namespace {

TEST(Format, Durations) {
  EXPECT_EQ(formatDuration(17.40e9), "17.40 s");
  EXPECT_EQ(formatDuration(221.64e6), "221.64 ms");
  EXPECT_EQ(formatDuration(3200), "3.20 us");
  EXPECT_EQ(formatDuration(850), "850 ns");
  EXPECT_EQ(formatDuration(0), "0 ns");
  // The unit is chosen after rounding: never "1000.00 ms" or "1000 ns".
  EXPECT_EQ(formatDuration(999.999e6), "1.00 s");
  EXPECT_EQ(formatDuration(999.994e6), "999.99 ms");
  EXPECT_EQ(formatDuration(999.6), "1.00 us");
  EXPECT_EQ(formatDuration(999.4), "999 ns");
}

TEST(Format, Bytes) {
  EXPECT_EQ(formatBytes(0), "0 B");
  EXPECT_EQ(formatBytes(1023), "1023 B");
  EXPECT_EQ(formatBytes(2048), "2.0 KB");
  EXPECT_EQ(formatBytes(16384), "16.0 KB");
  EXPECT_EQ(formatBytes(48ull << 20), "48.0 MB");
  EXPECT_EQ(formatBytes(64ull << 20), "64.0 MB");
  EXPECT_EQ(formatBytes((1ull << 20) - 1), "1.0 MB");
  EXPECT_EQ(formatBytes(80ull << 30), "80.0 GB");
}

TEST(Format, RatesArePerDecimalSecond) {
  EXPECT_EQ(formatRate(11.68e9), "11.68 GB/s");
  EXPECT_EQ(formatRate(850e6), "850.00 MB/s");
  EXPECT_EQ(formatRate(3.35e12), "3.35 TB/s");
}

TEST(Format, CountsAndPercents) {
  EXPECT_EQ(formatCount(0), "0");
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(formatCount(1000), "1,000");
  EXPECT_EQ(formatCount(13268), "13,268");
  EXPECT_EQ(formatCount(2235815690240ull), "2,235,815,690,240");
  EXPECT_EQ(formatPercent(97.24), "97.2%");
  EXPECT_EQ(formatPercent(15.14), "15.1%");
  EXPECT_EQ(formatFixed(-0.001, 1), "0.0");
  EXPECT_EQ(formatEnergy(350), "350.0 J");
  EXPECT_EQ(formatEnergy(1270), "1.27 kJ");
  EXPECT_EQ(formatMiB(1105ull << 20), "1105");
}

TEST(Format, PaddingAndCentering) {
  EXPECT_EQ(padRight("ab", 4), "ab  ");
  EXPECT_EQ(padLeft("ab", 4), "  ab");
  EXPECT_EQ(padLeft("abcdef", 4), "abcdef");
  EXPECT_EQ(padRight("—", 2), "— ");  // one column, three bytes
  EXPECT_EQ(centerText("GPU Flight Session Report", 79),
            std::string(27, ' ') + "GPU Flight Session Report");
  EXPECT_EQ(centerText("Generated: 2026-05-22 05:05:33 UTC", 79),
            std::string(23, ' ') + "Generated: 2026-05-22 05:05:33 UTC");
}

TEST(Format, KernelNames) {
  EXPECT_EQ(shortenKernelName(
                "matmul_row_per_thread(const float*, const float*, float*, int, int, int)", 40),
            "matmul_row_per_thread");
  EXPECT_EQ(shortenKernelName("__main__::matmul_kernel", 40), "__main__::matmul_kernel");
  EXPECT_EQ(shortenKernelName("void foo<int, bar<float>>(int)", 40), "foo<int, bar<float>>");
  EXPECT_EQ(shortenKernelName(
                "void ns::kernel_with_templates<int, some::very::long::type<float, 4>>(int)", 30),
            "ns::kernel_with_templates<...>");
  std::string cut =
      shortenKernelName("at::native::anonymous_namespace::vectorized_elementwise_kernel", 30);
  EXPECT_EQ(cut.size(), 30u);
  EXPECT_EQ(cut, "at::nativ...elementwise_kernel");
  EXPECT_EQ(shortenKernelName("__main__::matmul_kernel[abi:v1,"
                              "cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPKzLTg4gaGKFsG2oMQGEYakJSQB1PQBk0Bynm21"
                              "OiwU1a0UoLGhDpQE8oxrNQE_3d]",
                              40),
            "__main__::matmul_kernel");
  // What the demangler gives for a numba-cuda kernel, as seen on the H200: Numba's namespace and
  // tags go.
  EXPECT_EQ(shortenKernelName(
                "cudapy::__main__::matmul_kernel[abi:v1,cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPK]("
                "Array<float, 2, C, mutable, aligned>, Array<float, 2, C, mutable, aligned>)",
                40),
            "__main__::matmul_kernel");
}

TEST(Format, Wrap) {
  auto lines = wrapText(
      "Low memory efficiency (15%) — consider coalesced access patterns or shared memory tiling.",
      68, "      * ", "        ");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "      * Low memory efficiency (15%) — consider coalesced access");
  EXPECT_EQ(lines[1], "        patterns or shared memory tiling.");
}

// A word longer than a line (a library path in a note) is cut into lines, between folders where it
// can be: nothing goes past the width.
TEST(Format, WrapCutsAWordLongerThanALine) {
  const auto lines = wrapText(
      "loaded /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13 at init",
      40, "  note: ", "        ");
  for (const std::string& l : lines) EXPECT_LE(displayWidth(l), 40u) << l;
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "  note: loaded");
  EXPECT_EQ(lines[1], "        /opt/torch/.venv/lib/python3.12/");
  EXPECT_EQ(lines[2], "        site-packages/nvidia/cu13/lib/");
  EXPECT_EQ(lines[3], "        libcupti.so.13 at init");
  // No break character: cut at the width.
  EXPECT_EQ(wrapText(std::string(25, 'x'), 12, "", ""),
            (std::vector<std::string>{std::string(12, 'x'), std::string(12, 'x'), "x"}));
}

}  // namespace
}  // namespace gpufl::report
