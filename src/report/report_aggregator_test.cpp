// ReportAggregator: the shared model and the sections' own collectors from one pass over the
// records.
#include <gtest/gtest.h>

#include "report/report.hpp"

namespace gpufl::report {
namespace {

struct KernelTally {
  uint64_t kernels = 0, notes = 0;
  size_t groups_in_model = 0;
};

class TallyCollector : public SectionCollector {
 public:
  void onKernel(const KernelEvent&) override { ++tally_.kernels; }
  void onNote(const Note&) override { ++tally_.notes; }
  void finish(Report& r) override {
    tally_.groups_in_model = r.kernels.groups.size();
    r.section_data.set(tally_);
  }

 private:
  KernelTally tally_;
};

TEST(ReportAggregator, FeedsTheBuilderAndEveryCollectorAndStoresWhatTheyFound) {
  std::vector<std::unique_ptr<SectionCollector>> collectors;
  collectors.push_back(std::make_unique<TallyCollector>());
  ReportAggregator agg({}, std::move(collectors));
  EventVisitor& in = agg.input();
  EXPECT_EQ(&in, static_cast<EventVisitor*>(&agg));
  KernelDef def;
  def.id = 1;
  def.name = "k";
  visit(in, def);
  KernelEvent k;
  k.def_id = 1;
  k.start_ns = 10;
  k.end_ns = 20;
  visit(in, k);
  visit(in, k);
  visit(in, Note{});
  const Report r = std::move(agg).build();
  EXPECT_EQ(r.kernels.launches, 2u);  // the builder saw them
  const KernelTally* t = r.section_data.find<KernelTally>();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kernels, 2u);
  EXPECT_EQ(t->notes, 1u);
  EXPECT_EQ(t->groups_in_model, 1u);  // finish() ran after the model was built
}

TEST(ReportAggregator, WithoutCollectorsTheBuilderIsFedDirectly) {
  ReportAggregator agg({}, {});
  EXPECT_EQ(&agg.input(), static_cast<EventVisitor*>(&agg.builder()));
}

}  // namespace
}  // namespace gpufl::report
