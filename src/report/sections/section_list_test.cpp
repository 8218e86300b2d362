// The list of sections (section_list.hpp) is consistent: names unique, every JSON placement names a
// section of the list, every section shows something.
#include "report/sections/section_list.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpufl::report {
namespace {

TEST(SectionList, NamesAreUniqueAndEveryJsonPlacementNamesAnEarlierSection) {
  std::set<std::string_view> seen;
  for (const Section* s : reportSections()) {
    EXPECT_FALSE(s->name.empty());
    EXPECT_TRUE(seen.insert(s->name).second) << "two sections are named " << s->name;
    EXPECT_TRUE(s->text != nullptr || s->json != nullptr) << s->name << " shows nothing";
  }
  for (const Section* s : reportSections()) {
    if (s->json_after.empty()) continue;
    EXPECT_NE(s->json_after, s->name);
    EXPECT_TRUE(seen.contains(s->json_after))
        << s->name << ": json_after names no section: " << s->json_after;
  }
}

TEST(SectionData, HoldsOneValueOfEachTypeAndFindsItByType) {
  SectionData d;
  EXPECT_EQ(d.find<int>(), nullptr);
  d.set(3);
  d.set(std::string("x"));
  d.set(4);
  ASSERT_NE(d.find<int>(), nullptr);
  EXPECT_EQ(*d.find<int>(), 4);
  EXPECT_EQ(*d.find<std::string>(), "x");
  EXPECT_EQ(d.find<double>(), nullptr);
}

}  // namespace
}  // namespace gpufl::report
