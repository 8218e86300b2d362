#include "core/arch_limits.hpp"

#include <gtest/gtest.h>

namespace gpufl {
namespace {

constexpr int64_t KiB = 1024;

TEST(ArchLimits, ParsesNames) {
  EXPECT_EQ(parseArchName("sm_90"), std::make_pair(9, 0));
  EXPECT_EQ(parseArchName("sm_90a"), std::make_pair(9, 0));
  EXPECT_EQ(parseArchName("sm_100f"), std::make_pair(10, 0));
  EXPECT_EQ(parseArchName("compute_86"), std::make_pair(8, 6));
  EXPECT_EQ(parseArchName("120"), std::make_pair(12, 0));
  EXPECT_EQ(parseArchName("8.9"), std::make_pair(8, 9));
  EXPECT_FALSE(parseArchName("sm_").has_value());
  EXPECT_FALSE(parseArchName("sm_x90").has_value());
  EXPECT_FALSE(parseArchName("9").has_value());
  EXPECT_FALSE(parseArchName("sm_9000").has_value());
  EXPECT_FALSE(archLimitsFromName("sm_60").has_value());  // not in the table
}

TEST(ArchLimits, TableCoversTheSupportedArchitectures) {
  for (const char* name : {"sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
                           "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"}) {
    auto l = archLimitsFromName(name);
    ASSERT_TRUE(l.has_value()) << name;
    EXPECT_EQ(l->archName(), name);
    EXPECT_EQ(l->regs_per_sm, 65536);
    EXPECT_EQ(l->max_regs_per_thread, 255);
    EXPECT_EQ(l->reg_alloc_unit, 256);
    EXPECT_EQ(l->max_threads_per_block, 1024);
    ASSERT_FALSE(l->smem_carveouts_bytes.empty());
    EXPECT_EQ(l->smem_carveouts_bytes.back(), l->smem_per_sm_bytes) << name;
    EXPECT_EQ(l->smem_reserved_per_block_bytes, l->cc_major >= 8 ? KiB : 0) << name;
    EXPECT_EQ(l->smem_alloc_unit_bytes, l->cc_major >= 8 ? 128 : 256) << name;
  }
  EXPECT_EQ(knownArchNames().size(), 13u);
}

TEST(ArchLimits, DocumentedValues) {
  auto v100 = *archLimits(7, 0);
  EXPECT_EQ(v100.max_warps_per_sm, 64);
  EXPECT_EQ(v100.smem_per_sm_bytes, 96 * KiB);
  auto turing = *archLimits(7, 5);
  EXPECT_EQ(turing.max_warps_per_sm, 32);
  EXPECT_EQ(turing.max_blocks_per_sm, 16);
  EXPECT_EQ(turing.smem_carveouts_bytes, (std::vector<int64_t>{32 * KiB, 64 * KiB}));
  auto a100 = *archLimits(8, 0);
  EXPECT_EQ(a100.smem_per_block_optin_bytes, 163 * KiB);
  EXPECT_EQ(a100.smem_carveouts_bytes.size(), 8u);
  auto ga10x = *archLimits(8, 6);
  EXPECT_EQ(ga10x.max_warps_per_sm, 48);
  EXPECT_EQ(ga10x.max_blocks_per_sm, 16);
  EXPECT_EQ(ga10x.smem_per_sm_bytes, 100 * KiB);
  EXPECT_EQ(archLimits(8, 9)->max_blocks_per_sm, 24);
  auto h100 = *archLimits(9, 0);
  EXPECT_EQ(h100.smem_per_sm_bytes, 228 * KiB);
  EXPECT_EQ(h100.smem_per_block_optin_bytes, 227 * KiB);
  EXPECT_EQ(h100.smem_carveouts_bytes.size(), 10u);
  EXPECT_EQ(archLimits(12, 0)->smem_per_sm_bytes, 100 * KiB);
}

TEST(ArchLimits, RoundUpToCarveout) {
  auto l = *archLimits(8, 6);
  EXPECT_EQ(roundUpToCarveout(l, 0), 0);
  EXPECT_EQ(roundUpToCarveout(l, 1), 8 * KiB);
  EXPECT_EQ(roundUpToCarveout(l, 64 * KiB), 64 * KiB);
  EXPECT_EQ(roundUpToCarveout(l, 64 * KiB + 1), 100 * KiB);
  EXPECT_FALSE(roundUpToCarveout(l, 100 * KiB + 1).has_value());
  EXPECT_EQ(roundUpToCarveout(*archLimits(7, 5), 0), 32 * KiB);
}

DeviceInfo h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.warp_size = 32;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 32;
  d.regs_per_sm = 65536;
  d.regs_per_block = 65536;
  d.smem_per_sm_bytes = 233472;
  d.smem_per_block_bytes = 49152;
  d.smem_per_block_optin_bytes = 232448;
  d.smem_reserved_per_block_bytes = 1024;
  return d;
}

TEST(ArchLimits, FromDeviceMatchesTheTable) {
  auto l = limitsFromDevice(h200());
  auto t = *archLimits(9, 0);
  EXPECT_EQ(l.max_warps_per_sm, t.max_warps_per_sm);
  EXPECT_EQ(l.max_blocks_per_sm, t.max_blocks_per_sm);
  EXPECT_EQ(l.smem_per_sm_bytes, t.smem_per_sm_bytes);
  EXPECT_EQ(l.smem_per_block_optin_bytes, t.smem_per_block_optin_bytes);
  EXPECT_EQ(l.smem_reserved_per_block_bytes, t.smem_reserved_per_block_bytes);
  EXPECT_EQ(l.smem_carveouts_bytes, t.smem_carveouts_bytes);
}

TEST(ArchLimits, FromDevicePrefersTheDeviceAndFillsGaps) {
  DeviceInfo d;  // a record with only the compute capability
  d.cc_major = 8;
  d.cc_minor = 6;
  auto l = limitsFromDevice(d);
  EXPECT_EQ(l.max_warps_per_sm, 48);
  EXPECT_EQ(l.smem_reserved_per_block_bytes, KiB);

  DeviceInfo odd = h200();  // a hypothetical part with less shared memory and fewer threads
  odd.max_threads_per_sm = 1536;
  odd.smem_per_sm_bytes = 100 * KiB;
  odd.smem_per_block_optin_bytes = 99 * KiB;
  auto lo = limitsFromDevice(odd);
  EXPECT_EQ(lo.max_warps_per_sm, 48);
  EXPECT_EQ(lo.smem_carveouts_bytes.back(), 100 * KiB);
  EXPECT_EQ(lo.smem_carveouts_bytes.size(), 6u);
}

TEST(ArchLimits, FromDeviceNewerThanTheTable) {
  DeviceInfo d = h200();
  d.cc_minor = 5;  // sm_95: unknown, falls back to sm_90's rules
  auto l = limitsFromDevice(d);
  EXPECT_EQ(l.cc_minor, 5);
  EXPECT_EQ(l.archName(), "sm_95");
  EXPECT_EQ(l.smem_alloc_unit_bytes, 128);
  EXPECT_EQ(l.smem_carveouts_bytes.back(), 228 * KiB);
  d.cc_major = 14;  // unknown major: newest row
  d.cc_minor = 0;
  EXPECT_EQ(limitsFromDevice(d).smem_alloc_unit_bytes, 128);
}

}  // namespace
}  // namespace gpufl
