#include "core/occupancy.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpufl {
namespace {

constexpr int64_t KiB = 1024;
using LR = LimitingResource;

OccupancyDetail calc(const std::string& arch, int threads, int regs, int64_t static_smem,
                     int64_t dyn_smem = 0, int carveout = -1) {
  auto limits = archLimitsFromName(arch);
  EXPECT_TRUE(limits.has_value()) << arch;
  if (!limits) return {};
  return computeOccupancyDetail(*limits, {threads, regs, static_smem, dyn_smem, carveout});
}

// ---- The seed's worked examples (shared/seeds/03) ----

TEST(Occupancy, SeedStaticSharedMemoryReduction) {
  // sm_86: 48 warps, 100 KiB. 16 KiB static + 1 KiB reserve = 17408 B/block -> 102400/17408 = 5
  // blocks; warps allow 48/8 = 6. 5 * 8 / 48.
  auto d = calc("sm_86", 256, 16, 16 * KiB);
  EXPECT_EQ(d.occupancy.max_active_blocks, 5);
  EXPECT_NEAR(d.occupancy.occupancy, 0.833333, 1e-6);
  EXPECT_NEAR(d.occupancy.smem_occupancy, 0.833333, 1e-6);
  EXPECT_DOUBLE_EQ(d.occupancy.reg_occupancy, 1.0);
  EXPECT_DOUBLE_EQ(d.occupancy.warp_occupancy, 1.0);
  EXPECT_DOUBLE_EQ(d.occupancy.block_occupancy, 1.0);
  EXPECT_EQ(d.occupancy.limiting, LR::SharedMem);
  EXPECT_STREQ(limitingResourceName(d.occupancy.limiting), "shared_mem");
}

TEST(Occupancy, SeedDynamicSharedMemoryFix) {
  // 1 KiB dynamic + 1 KiB reserve = 2048 B -> 50 blocks; warps allow 6 -> full occupancy, limited
  // by warps.
  auto d = calc("sm_86", 256, 16, 0, 1 * KiB);
  EXPECT_EQ(d.occupancy.max_active_blocks, 6);
  EXPECT_DOUBLE_EQ(d.occupancy.occupancy, 1.0);
  EXPECT_EQ(d.occupancy.limiting, LR::Warps);
  EXPECT_STREQ(limitingResourceName(d.occupancy.limiting), "warps");
}

TEST(Occupancy, SeedSgemmRegisters) {
  // 122 regs * 32 = 3904 -> 4096/warp; 16384/4096 = 4 warps per sub-partition -> 16 warps -> 4
  // blocks of 4 warps. 11 KiB static + 1 KiB reserve = 12 KiB -> 8 blocks (smem 66.7% as in the
  // seed); 16/48 = 33.3%.
  auto d = calc("sm_86", 128, 122, 11 * KiB);
  EXPECT_EQ(d.occupancy.max_active_blocks, 4);
  EXPECT_NEAR(d.occupancy.occupancy, 1.0 / 3.0, 1e-9);
  EXPECT_NEAR(d.occupancy.reg_occupancy, 1.0 / 3.0, 1e-9);
  EXPECT_NEAR(d.occupancy.smem_occupancy, 2.0 / 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(d.occupancy.warp_occupancy, 1.0);
  EXPECT_DOUBLE_EQ(d.occupancy.block_occupancy, 1.0);
  EXPECT_EQ(d.occupancy.limiting, LR::Registers);
  EXPECT_EQ(d.regs_per_warp_allocated, 4096);
  EXPECT_EQ(d.regs_per_block_allocated, 16384);
}

// ---- Known cases across architectures, derived by hand from the documented limits ----

struct Case {
  const char* arch;
  int threads, regs;
  int64_t static_smem, dyn_smem;
  int carveout;
  int blocks;
  double occupancy;
  LR limiting;
  const char* derivation;
};

const Case kCases[] = {
    {"sm_70", 1024, 32, 0, 0, -1, 2, 1.0, LR::Warps,
     "32 warps/block: warps 64/32=2; regs 1024/warp -> 16/subpart -> 64 warps -> 2 (tie -> warps); "
     "64/64"},
    {"sm_70", 64, 40, 0, 0, -1, 24, 0.75, LR::Registers,
     "40*32=1280/warp; 16384/1280=12 per subpart -> 48 warps -> 24 blocks of 2 (a flat "
     "65536/1280=51 would say 25);"
     " warps 32, blocks 32; 48/64"},
    {"sm_70", 256, 32, 48 * KiB, 0, -1, 2, 0.25, LR::SharedMem,
     "no reserve on sm_7x: 49152 B/block; 98304/49152=2; warps 8, regs 8; 16/64"},
    {"sm_70", 256, 32, 10000, 0, 25, 3, 0.375, LR::SharedMem,
     "10000 -> 10240 (256 B unit); carveout 25% of 96 KiB = 24 KiB -> next size 32 KiB; "
     "32768/10240=3; 24/64"},
    {"sm_72", 96, 64, 0, 0, -1, 10, 30.0 / 64, LR::Registers,
     "3 warps; 2048/warp -> 8/subpart -> 32 warps -> 10 blocks; warps 21, blocks 32; 30/64"},
    {"sm_75", 256, 32, 0, 0, -1, 4, 1.0, LR::Warps,
     "32 warps/SM: 32/8=4; regs 1024/warp -> 64 warps -> 8; blocks 16; 32/32"},
    {"sm_75", 128, 64, 20 * KiB, 0, -1, 3, 0.375, LR::SharedMem,
     "20480 B; 65536/20480=3; regs 2048/warp -> 32 warps -> 8; warps 8; 12/32"},
    {"sm_75", 128, 64, 20 * KiB, 0, 0, 1, 0.125, LR::SharedMem,
     "carveout 0% -> smallest Turing size 32 KiB; 32768/20480=1; 4/32"},
    {"sm_80", 256, 64, 0, 0, -1, 4, 0.5, LR::Registers,
     "2048/warp -> 8/subpart -> 32 warps -> 4 blocks; warps 8; smem 1 KiB reserve -> 164; 32/64"},
    {"sm_80", 128, 32, 48 * KiB, 0, -1, 3, 0.1875, LR::SharedMem,
     "49152+1024=50176 B; 167936/50176=3; regs 16, warps 16; 12/64"},
    {"sm_80", 256, 32, 0, 163 * KiB, -1, 1, 0.125, LR::SharedMem,
     "163 KiB opt-in + 1 KiB reserve = 164 KiB = the whole SM: 1 block; 8/64"},
    {"sm_80", 256, 32, 0, 163 * KiB + 1, -1, 0, 0.0, LR::SharedMem,
     "one byte over the 163 KiB opt-in limit: no block fits"},
    {"sm_86", 1024, 32, 0, 0, -1, 1, 32.0 / 48, LR::Warps,
     "48 warps/SM hold one 32-warp block; regs 1024/warp -> 2 blocks; 32/48"},
    {"sm_86", 32, 255, 0, 0, -1, 8, 8.0 / 48, LR::Registers,
     "255*32=8160 -> 8192/warp; 2 per subpart -> 8 warps -> 8 one-warp blocks; blocks 16, warps "
     "48; 8/48"},
    {"sm_86", 32, 256, 0, 0, -1, 0, 0.0, LR::Registers,
     "256 registers per thread exceed the 255 limit"},
    {"sm_86", 100, 0, 0, 0, -1, 12, 1.0, LR::Warps,
     "100 threads round up to 4 warps; 48/4=12; no registers -> unlimited; reserve 1 KiB -> 100; "
     "48/48"},
    {"sm_87", 512, 48, 32 * KiB, 0, -1, 2, 32.0 / 48, LR::Registers,
     "16 warps; 1536/warp -> 10/subpart -> 40 warps -> 2; warps 3; smem 33792 -> 167936/33792=4; "
     "32/48"},
    {"sm_89", 32, 16, 0, 0, -1, 24, 0.5, LR::Blocks,
     "1 warp/block; the 24-block cap binds before warps (48); 24/48"},
    {"sm_90", 256, 32, 0, 0, -1, 8, 1.0, LR::Warps,
     "warps 64/8=8; regs 1024/warp -> 64 warps -> 8 (tie -> warps); 64/64"},
    {"sm_90", 32, 88, 0, 0, -1, 20, 20.0 / 64, LR::Registers,
     "88*32=2816/warp; 16384/2816=5 per subpart -> 20 warps -> 20 blocks (flat 65536/2816 would "
     "say 23); 20/64"},
    {"sm_90", 256, 32, 0, 200 * KiB, -1, 1, 0.125, LR::SharedMem,
     "204800+1024=205824 B; 233472/205824=1; 8/64"},
    {"sm_90", 256, 32, 16 * KiB, 0, 50, 7, 0.875, LR::SharedMem,
     "carveout 50% of 228 KiB = 114 KiB -> next size 132 KiB = 135168; 17408 B/block -> 7; 56/64"},
    {"sm_90", 800, 80, 0, 0, -1, 0, 0.0, LR::Registers,
     "25 warps * 2560 = 64000 regs fits, but the hardware check rounds to 28 warps: 71680 > 65536 "
     "-> 0"},
    {"sm_100", 512, 64, 0, 0, -1, 2, 0.5, LR::Registers,
     "16 warps; 2048/warp -> 8/subpart -> 32 warps -> 2; warps 4; 32/64"},
    {"sm_103", 1024, 65, 0, 0, -1, 0, 0.0, LR::Registers,
     "65*32=2080 -> 2304/warp * 32 warps = 73728 > 65536 registers per block -> 0"},
    {"sm_110", 128, 32, 0, 0, -1, 12, 1.0, LR::Warps,
     "48 warps/SM: 48/4=12; regs 1024/warp -> 16; blocks 24; 48/48"},
    {"sm_120", 256, 40, 24 * KiB, 0, -1, 4, 32.0 / 48, LR::SharedMem,
     "smem 24576+1024=25600 -> 102400/25600=4; regs 1280/warp -> 12/subpart -> 48 warps -> 6; "
     "warps 6; 32/48"},
    {"sm_120", 1056, 32, 0, 0, -1, 0, 0.0, LR::Warps,
     "1056 threads exceed the 1024-thread block limit"},
    {"sm_121", 192, 0, 0, 0, -1, 8, 1.0, LR::Warps,
     "6 warps: 48/6=8; blocks 24; smem reserve only -> 100"},
};

TEST(Occupancy, KnownCases) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.arch) + " threads=" + std::to_string(c.threads) +
                 " regs=" + std::to_string(c.regs) + ": " + c.derivation);
    auto d = calc(c.arch, c.threads, c.regs, c.static_smem, c.dyn_smem, c.carveout);
    ASSERT_TRUE(d.valid) << d.error;
    EXPECT_EQ(d.occupancy.max_active_blocks, c.blocks);
    EXPECT_NEAR(d.occupancy.occupancy, c.occupancy, 1e-9);
    EXPECT_EQ(d.occupancy.limiting, c.limiting);
    if (c.blocks == 0) {
      EXPECT_FALSE(d.zero_reason.empty());
    }
  }
}

TEST(Occupancy, PerResourceFieldsAreCappedBlocksTimesWarps) {
  auto d =
      calc("sm_89", 32, 16, 0);  // 24 blocks by the cap, 48 by warps, 100 by smem, 128+ by regs
  EXPECT_EQ(d.blocks_by_blocks, 24);
  EXPECT_EQ(d.blocks_by_warps, 48);
  EXPECT_EQ(d.blocks_by_shared_mem, 100);
  EXPECT_EQ(d.blocks_by_registers, 128);  // 512/warp -> 32/subpart -> 128 warps
  EXPECT_DOUBLE_EQ(d.occupancy.block_occupancy, 0.5);
  EXPECT_DOUBLE_EQ(d.occupancy.warp_occupancy, 1.0);
  EXPECT_DOUBLE_EQ(d.occupancy.reg_occupancy, 1.0);
  EXPECT_EQ(d.active_warps, 24);
}

TEST(Occupancy, SharedMemoryGranularityAndReserve) {
  EXPECT_EQ(calc("sm_80", 32, 0, 1).smem_per_block_allocated, 1152);  // 1 + 1024 -> 128 B unit
  EXPECT_EQ(calc("sm_70", 32, 0, 1).smem_per_block_allocated, 256);   // no reserve, 256 B unit
  EXPECT_EQ(calc("sm_70", 32, 0, 0).blocks_by_shared_mem, kUnlimitedBlocks);
}

TEST(Occupancy, MinCarveoutKeepsTheBlocks) {
  // sm_90, 16 KiB static: warps allow 8 blocks; 8 * 17408 = 139264 B -> the 164 KiB configuration.
  auto d = calc("sm_90", 256, 32, 16 * KiB);
  EXPECT_EQ(d.occupancy.max_active_blocks, 8);
  EXPECT_EQ(d.smem_per_sm_bytes, 228 * KiB);
  EXPECT_EQ(d.min_carveout_bytes, 164 * KiB);
  // 200 KiB dynamic needs the largest configuration.
  EXPECT_EQ(calc("sm_90", 256, 32, 0, 200 * KiB).min_carveout_bytes, 228 * KiB);
}

TEST(Occupancy, CarveoutPreferenceBelowOneBlockIsOverridden) {
  // sm_86, carveout 0%, 40 KiB static: 41984 B does not fit 0 KiB, so the smallest size holding it
  // (64 KiB) is used.
  auto d = calc("sm_86", 128, 32, 40 * KiB, 0, 0);
  EXPECT_EQ(d.smem_per_sm_bytes, 64 * KiB);
  EXPECT_EQ(d.occupancy.max_active_blocks, 1);
}

TEST(Occupancy, LimitingMaskNamesEveryTie) {
  auto d = calc("sm_90", 256, 32, 0);  // warps 8, registers 8
  EXPECT_EQ(d.limiting_mask, (1u << static_cast<unsigned>(LR::Warps)) |
                                 (1u << static_cast<unsigned>(LR::Registers)));
}

TEST(Occupancy, MalformedInputIsInvalid) {
  auto limits = *archLimits(9, 0);
  EXPECT_FALSE(computeOccupancyDetail(limits, {0, 32, 0, 0, -1}).valid);
  EXPECT_FALSE(computeOccupancyDetail(limits, {128, -1, 0, 0, -1}).valid);
  EXPECT_FALSE(computeOccupancyDetail(limits, {128, 32, -1, 0, -1}).valid);
  EXPECT_FALSE(computeOccupancyDetail(limits, {128, 32, 0, 0, 101}).valid);
  Occupancy o = computeOccupancy(limits, 0, 32, 0, 0);
  EXPECT_EQ(o.max_active_blocks, 0);
  EXPECT_EQ(o.limiting, LR::None);
}

TEST(Occupancy, RecordFormMatchesDetail) {
  Occupancy o = computeOccupancy(*archLimits(8, 6), 256, 16, 16 * KiB, 0);
  EXPECT_EQ(o.max_active_blocks, 5);
  EXPECT_EQ(o.limiting, LR::SharedMem);
}

}  // namespace
}  // namespace gpufl
