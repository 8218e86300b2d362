// gpufl diff's gate on synthetic transformer training sessions (bench/synthetic_session.hpp: 1.5%
// jitter, 0.3% outliers, kernels redrawn now and then): other seeds of the same program pass, a 10%
// slower kernel fails.
#include <gtest/gtest.h>

#include <map>

#include "report/diff/diff_stats.hpp"
#include "synthetic_session.hpp"

namespace gpufl::report {
namespace {

constexpr uint64_t kKernels = 60'000;

struct Count final : EventVisitor {
  std::map<uint32_t, uint64_t> launches;
  void onKernel(const KernelEvent& e) override { ++launches[e.def_id]; }
};

DiffSide side(bench::SessionSpec spec) {
  DiffCollector c;
  bench::generateSession(spec, c);
  return c.finish("seed " + std::to_string(spec.seed));
}

TEST(DiffSynthetic, SameProgramPassesAPlantedTenPercentFails) {
  Count count;
  bench::generateSession({kKernels, 1, 0, false}, count);
  uint32_t busiest = 0;
  for (const auto& [id, n] : count.launches)
    if (!busiest || n > count.launches[busiest]) busiest = id;
  const DiffSide base = side({kKernels, 1, 0, false});
  for (uint64_t seed = 2; seed <= 4; ++seed) {
    const SessionDiff d = diffSessions(base, side({kKernels, seed, 0, false}));
    EXPECT_EQ(d.regressions, 0u) << renderDiffText(d);
  }
  bench::SessionSpec slow{kKernels, 5, 0, false};
  slow.slower_kernel = busiest;
  slow.slower_factor = 1.10;
  const SessionDiff d = diffSessions(base, side(slow));
  EXPECT_GE(d.regressions, 1u) << renderDiffText(d);
  bool kernel_flagged = false;
  for (const GroupDiff& g : d.groups)
    if (g.kind == "kernel" && g.regression) kernel_flagged = g.change > 0.08 && g.change < 0.12;
  EXPECT_TRUE(kernel_flagged) << renderDiffText(d);
}

}  // namespace
}  // namespace gpufl::report
