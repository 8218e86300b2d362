#include "report/sections/section_list.hpp"

namespace gpufl::report {
namespace sections {
#define GFL_REPORT_SECTION_DECLARE_(name) extern const Section name;
GFL_REPORT_SECTIONS(GFL_REPORT_SECTION_DECLARE_)
#undef GFL_REPORT_SECTION_DECLARE_
}  // namespace sections

namespace {
#define GFL_REPORT_SECTION_ENTRY_(name) &sections::name,
constexpr const Section* kSections[] = {GFL_REPORT_SECTIONS(GFL_REPORT_SECTION_ENTRY_)};
#undef GFL_REPORT_SECTION_ENTRY_
}  // namespace

std::span<const Section* const> reportSections() {
  return kSections;
}

std::vector<std::unique_ptr<SectionCollector>> sectionCollectors() {
  std::vector<std::unique_ptr<SectionCollector>> out;
  for (const Section* s : kSections)
    if (s->collector) out.push_back(s->collector());
  return out;
}

}  // namespace gpufl::report
