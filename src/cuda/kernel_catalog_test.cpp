#include "cuda/kernel_catalog.hpp"

#include <gtest/gtest.h>

namespace gpufl::cuda {
namespace {

DeviceInfo h200() {
  DeviceInfo d;
  d.id = 0;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
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

KernelDef shape(const char* name, uint32_t grid, uint32_t block, int regs, int64_t static_smem) {
  KernelDef s;
  s.name = name;
  s.grid = {grid, 1, 1};
  s.block = {block, 1, 1};
  s.num_regs = regs;
  s.static_shared_bytes = static_smem;
  return s;
}

TEST(KernelCatalog, SameShapeSameIdNewShapeNewDef) {
  KernelCatalog catalog;
  catalog.setDevices({h200()});
  bool created = false;
  KernelDef def;
  uint32_t a = catalog.intern(shape("_Z4tinyPf", 1, 32, 8, 0), -1, &created, &def);
  EXPECT_TRUE(created);
  EXPECT_EQ(def.id, a);
  EXPECT_EQ(def.demangled, "tiny(float*)");
  uint32_t b = catalog.intern(shape("_Z4tinyPf", 1, 32, 8, 0), -1, &created, &def);
  EXPECT_FALSE(created);
  EXPECT_EQ(a, b);
  uint32_t c = catalog.intern(shape("_Z4tinyPf", 2, 32, 8, 0), -1, &created, &def);
  EXPECT_TRUE(created);
  EXPECT_NE(a, c);
  EXPECT_EQ(catalog.size(), 2u);
}

TEST(KernelCatalog, TheRequestedCarveoutIsPartOfTheShapeAndOfItsDef) {
  KernelCatalog catalog;
  catalog.setDevices({h200()});
  bool created = false;
  KernelDef def;
  const uint32_t none = catalog.intern(shape("_Z4tinyPf", 1, 32, 8, 0), -1, &created, &def);
  EXPECT_FALSE(def.carveout_pct.has_value());
  const uint32_t quarter = catalog.intern(shape("_Z4tinyPf", 1, 32, 8, 0), 25, &created, &def);
  EXPECT_TRUE(created);
  EXPECT_NE(none, quarter);
  EXPECT_EQ(def.carveout_pct, 25);
  catalog.intern(shape("_Z4tinyPf", 1, 32, 8, 0), 0, &created, &def);
  EXPECT_EQ(def.carveout_pct, 0);  // 0% is a request too (L1 only), not "no preference"
}

TEST(KernelCatalog, OccupancyAndWavesFromTheDevice) {
  KernelCatalog catalog;
  catalog.setDevices({h200()});
  bool created = false;
  KernelDef def;
  // 256 threads, 16 KB static shared memory on sm_90: (16384 + 1024 reserve) per block -> 13 blocks
  // by shared memory (233472 / 17408), 8 by warps (64 / 8): warps limit, 8 blocks/SM, full
  // occupancy.
  catalog.intern(shape("_Z18block_reduce_naivePKfPfi", 16384, 256, 16, 16384), -1, &created, &def);
  ASSERT_TRUE(def.occupancy.has_value());
  EXPECT_EQ(def.occupancy->max_active_blocks, 8);
  EXPECT_DOUBLE_EQ(def.occupancy->occupancy, 1.0);
  EXPECT_EQ(def.occupancy->limiting, LimitingResource::Warps);
  ASSERT_TRUE(def.waves.has_value());
  EXPECT_NEAR(*def.waves, 16384.0 / (8 * 132), 1e-9);
}

TEST(KernelCatalog, WithoutKernelDetailsNoOccupancy) {
  KernelCatalog catalog;
  catalog.setDevices({h200()});
  catalog.setOccupancyEnabled(false);
  bool created = false;
  KernelDef def;
  catalog.intern(shape("_Z4tinyPf", 1, 32, 8, 0), -1, &created, &def);
  EXPECT_TRUE(created);
  EXPECT_EQ(def.num_regs, 8);
  EXPECT_FALSE(def.occupancy.has_value());
  EXPECT_FALSE(def.waves.has_value());
}

TEST(KernelCatalog, UnknownDeviceGetsNoOccupancy) {
  KernelCatalog catalog;
  bool created = false;
  KernelDef def;
  KernelDef s = shape("k", 1, 32, 8, 0);
  s.device = 3;
  catalog.intern(s, -1, &created, &def);
  EXPECT_FALSE(def.occupancy.has_value());
  EXPECT_FALSE(def.waves.has_value());
}

}  // namespace
}  // namespace gpufl::cuda
