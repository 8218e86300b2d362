#include "report/text/text_table.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/output_width.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

TextTable sample() {
  TextTable t({{"verdict", false, 0}, {"base med", true, 0}, {"count", true, 2}, {"p", true, 1}},
              "name");
  for (int i = 0; i < 6; ++i)
    t.addRow({"same", "1.00 ms", "100->100", "0.5000"},
             "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
             "(anonymous namespace)::TensorListMetadata<" +
                 std::to_string(i + 1) + ">, at::native::FillFunctor<float>, float>(int)");
  return t;
}

TEST(TextTable, EveryLineFitsAndNamesStayDistinct) {
  for (std::size_t width : {40u, 60u, 80u, 120u, 200u}) {
    const auto lines = sample().render(width);
    std::set<std::string> rows;
    for (const std::string& l : lines) {
      EXPECT_LE(displayWidth(l), width) << width << ": " << l;
      if (l.find("multi_tensor") != std::string::npos) rows.insert(l);
    }
    EXPECT_EQ(rows.size(), 6u) << width;  // six kernels, six different lines
  }
}

TEST(TextTable, LeavesOutColumnsInOrderAndSaysWhich) {
  const auto wide = sample().render(200);
  EXPECT_NE(wide[0].find("count"), std::string::npos);
  EXPECT_EQ(wide.back().find("left out"), std::string::npos);
  const auto narrow = sample().render(50);
  EXPECT_EQ(narrow[0].find("count"), std::string::npos) << narrow[0];
  std::string all;
  for (const std::string& l : narrow) all += l + "\n";
  EXPECT_NE(all.find("(left out to fit 50 columns: count"), std::string::npos) << all;
}

TEST(TextTable, UnlimitedKeepsEverything) {
  const auto lines = sample().render(kUnlimitedWidth);
  EXPECT_NE(lines[0].find("p"), std::string::npos);
  EXPECT_NE(lines[1].find("TensorListMetadata<1>"), std::string::npos) << lines[1];
}

TEST(TextTable, PathsKeepTheirEnd) {
  TextTable t({{"total", true, 0}}, "scope", false);
  t.addRow({"1 ms"}, std::string(100, 'a') + "/forward");
  const auto lines = t.render(40);
  EXPECT_NE(lines[1].find("/forward"), std::string::npos) << lines[1];
  EXPECT_LE(displayWidth(lines[1]), 40u);
}

}  // namespace
}  // namespace gpufl::report
