// The grid and occupancy sentences say what is true, with the numbers, and offer only changes
// that raise occupancy.
#include "report/aggregate/hints.hpp"

#include <gtest/gtest.h>

namespace gpufl::report {
namespace {

KernelGroup group(std::string name, uint32_t blocks, int per_sm, double waves) {
  KernelGroup g;
  g.name = g.mangled = std::move(name);
  g.grid = {blocks, 1, 1};
  g.block = {128, 1, 1};
  g.def.num_regs = 64;
  Occupancy o;
  o.max_active_blocks = per_sm;
  o.occupancy = o.reg_occupancy = 0.5;
  o.smem_occupancy = o.warp_occupancy = o.block_occupancy = 1.0;
  o.limiting = LimitingResource::Registers;
  g.def.occupancy = o;
  g.def.waves = waves;
  return g;
}

DeviceInfo h200() {
  DeviceInfo d;
  d.sm_count = 132;
  return d;
}

TEST(GridFill, MoreBlocksThanSmsIsOnePartialWaveNotIdleSms) {
  const DeviceInfo dev = h200();
  // 256 blocks, 12 per SM on 132 SMs: every SM has work, but the wave is 16% full.
  const std::string s = gridFillAdvice(group("scale", 256, 12, 256.0 / (12 * 132)), &dev);
  EXPECT_NE(s.find("256 blocks on 132 SMs make one partial wave"), std::string::npos) << s;
  EXPECT_NE(s.find("each SM runs 1-2 blocks of the 12 it can hold"), std::string::npos) << s;
  EXPECT_EQ(s.find("idle"), std::string::npos) << s;
  EXPECT_EQ(s.find("no block"), std::string::npos) << s;
}

TEST(GridFill, FewerBlocksThanSmsCountsTheEmptySms) {
  const DeviceInfo dev = h200();
  const std::string s = gridFillAdvice(group("scale", 36, 4, 36.0 / (4 * 132)), &dev);
  EXPECT_NE(s.find("36 blocks run on 132 SMs: 96 SMs get no block"), std::string::npos) << s;
}

TEST(GridFill, AMostlyEmptyLastWaveIsATailEffect) {
  const DeviceInfo dev = h200();
  const std::string s = gridFillAdvice(group("scale", 1700, 12, 1700.0 / 1584), &dev);
  EXPECT_NE(s.find("1.07 waves of 1,584"), std::string::npos) << s;
  EXPECT_NE(s.find("tail effect"), std::string::npos) << s;
  // Full waves, or a last wave at least half full: nothing to say.
  EXPECT_EQ(gridFillAdvice(group("scale", 1584 * 3, 12, 3.0), &dev), "");
  EXPECT_EQ(gridFillAdvice(group("scale", 1400, 12, 1400.0 / 1584), &dev), "");
}

TEST(GridFill, LibraryKernelsAreToldToGiveEachCallMoreWork) {
  const DeviceInfo dev = h200();
  const std::string s = gridFillAdvice(
      group("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8", 256, 12, 256.0 / 1584), &dev);
  EXPECT_NE(s.find("Give each call more work"), std::string::npos) << s;
}

TEST(OccupancyAdvice, NamesTheFigureAFixReaches) {
  KernelGroup g = group("scale", 4096, 4, 8.0);
  g.def.occupancy->smem_occupancy = 0.75;  // relieving registers stops at shared memory's 75%
  const std::string s = occupancyAdvice(g, nullptr);
  EXPECT_NE(s.find("occupancy 50.0% is limited by registers (64 per thread)"), std::string::npos)
      << s;
  EXPECT_NE(s.find("up to 75.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("__launch_bounds__"), std::string::npos) << s;
}

TEST(OccupancyAdvice, NoRegisterCapWhenSharedMemoryLimitsAlike) {
  KernelGroup g = group("scale", 4096, 4, 8.0);
  g.def.occupancy->smem_occupancy = 0.5;  // shared memory holds it at 50% too
  const std::string s = occupancyAdvice(g, nullptr);
  EXPECT_NE(s.find("registers (64 per thread) and shared memory alike"), std::string::npos) << s;
  EXPECT_NE(s.find("relieving registers alone gains nothing. Reduce shared memory too."),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("__launch_bounds__"), std::string::npos) << s;
  EXPECT_EQ(s.find("up to"), std::string::npos) << s;
}

TEST(OccupancyAdvice, LibraryKernelsGetNoLaunchBounds) {
  KernelGroup g = group("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8", 256, 12, 0.16);
  const std::string s = occupancyAdvice(g, nullptr);
  EXPECT_EQ(s.find("__launch_bounds__"), std::string::npos) << s;
  EXPECT_EQ(s.find("maxrregcount"), std::string::npos) << s;
  EXPECT_NE(s.find("the library's choice"), std::string::npos) << s;
}

TEST(Hints, NoPerKernelLibraryAdviceButOneLineForTheLibrary) {
  Report r;
  r.session.devices.push_back(h200());
  for (int i = 0; i < 3; ++i) {
    KernelGroup g = group("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8", 256, 12, 0.16);
    g.durations.total_ns = 1000;
    r.kernels.groups.push_back(g);
  }
  r.kernels.total_ns = 3000;
  addHints(r);
  int library = 0, small_grid = 0;
  for (const Hint& h : r.hints) {
    EXPECT_EQ(h.text.find("__launch_bounds__"), std::string::npos) << h.text;
    library += h.kind == "library";
    small_grid += h.kind == "small_grid";
    if (h.kind == "small_grid") {  // three identical hints said once
      EXPECT_NE(h.text.find("The same holds for 2 more kernels"), std::string::npos) << h.text;
    }
  }
  EXPECT_EQ(library, 1);
  EXPECT_EQ(small_grid, 1);
}

}  // namespace
}  // namespace gpufl::report
