#include "report/text/short_names.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/demangle.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

// The mangled kernel names of a real session (kernel_def records of an H200 PyTorch training run).
std::vector<std::string> fixtureNames(const std::string& file) {
  std::ifstream in(std::string(GPUFL_TEST_DATA_DIR) + "/h200/" + file);
  std::vector<std::string> names;
  std::string line;
  const std::string key = "\"name\":\"";
  while (std::getline(in, line)) {
    if (line.find("\"type\":\"kernel_def\"") == std::string::npos) continue;
    size_t at = line.find(key);
    if (at == std::string::npos) continue;
    at += key.size();
    names.push_back(line.substr(at, line.find('"', at) - at));
  }
  return names;
}

// Distinct readable forms of the inputs must stay distinct, and every result fits.
void expectDistinctAndFitting(const std::vector<std::string>& names, size_t width) {
  std::vector<std::string> out = shortNames(names, width);
  ASSERT_EQ(out.size(), names.size());
  std::set<std::string> inputs(names.begin(), names.end()), outputs(out.begin(), out.end());
  EXPECT_EQ(outputs.size(), inputs.size()) << "width " << width;
  for (const std::string& s : out) {
    EXPECT_LE(displayWidth(s), std::max(width, kMinShortNameWidth)) << s;
    EXPECT_FALSE(s.empty());
  }
}

std::string shortOf(const std::vector<std::string>& names, size_t width,
                    std::string_view contains) {
  std::vector<std::string> out = shortNames(names, width);
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].find(contains) != std::string::npos) return out[i];
  ADD_FAILURE() << "no input contains " << contains;
  return "";
}

TEST(ShortNames, NamesThatFitAreTheReadableForm) {
  std::vector<std::string> out = shortNames({"_Z5saxpyffPKfPfi", "matmul_naive"}, 40);
  EXPECT_EQ(out, (std::vector<std::string>{"saxpy", "matmul_naive"}));
}

TEST(ShortNames, PytorchFixtureStaysDistinctAtEveryWidth) {
  std::vector<std::string> names = fixtureNames("pytorch_train_trace.device.log");
  ASSERT_GE(names.size(), 20u);
  for (size_t width : {8, 20, 40, 60, 120}) expectDistinctAndFitting(names, width);
}

TEST(ShortNames, CublasVariantsKeepLayoutTileAndSplitK) {
  std::vector<std::string> names = fixtureNames("pytorch_train_trace.device.log");
  // Six sm80_xmma_gemm variants differing in layout (nn/nt/tn), tile size, warp size and split-k.
  std::string split = shortOf(names, 40, "execute_split_k_kernel");
  EXPECT_NE(split.find("split"), std::string::npos) << split;
  EXPECT_EQ(split.rfind("sm80", 0), 0u) << split;
  std::string tn = shortOf(names, 40, "f32_tn_n_tilesize32x32x8");
  EXPECT_NE(tn.find("tn"), std::string::npos) << tn;
  EXPECT_NE(tn.find("32x32x8"), std::string::npos) << tn;
  std::string nt = shortOf(names, 40, "f32_nt_n_tilesize32x64x8");
  EXPECT_NE(nt.find("32x64x8"), std::string::npos) << nt;
}

TEST(ShortNames, TemplateInstantiationsKeepTheArgumentThatDiffers) {
  std::vector<std::string> names = fixtureNames("pytorch_train_trace.device.log");
  // multi_tensor_apply_kernel instantiations differ in their functor (plus / multiplies / Lerp /
  // Sqrt / divides) and their metadata arity.
  std::string plus = shortOf(names, 60, "St4plusIfEf");
  EXPECT_NE(plus.find("plus"), std::string::npos) << plus;
  EXPECT_EQ(plus.rfind("multi_tensor_apply", 0), 0u) << plus;
  std::string sqrt = shortOf(names, 60, "4SqrtIfE");
  EXPECT_NE(sqrt.find("Sqrt"), std::string::npos) << sqrt;
  std::string fill = shortOf(names, 50, "11FillFunctor");
  EXPECT_NE(fill.find("FillFunctor"), std::string::npos) << fill;
  // The kernel's own namespace goes first, silently: no leading ellipsis for `at::native::`.
  EXPECT_EQ(fill.rfind("vectorized_elementwise_kernel<", 0), 0u) << fill;
}

TEST(ShortNames, EqualInputsShareOneResult) {
  std::vector<std::string> out = shortNames({"k<int>", "k<float>", "k<int>"}, 40);
  EXPECT_EQ(out[0], out[2]);
  EXPECT_NE(out[0], out[1]);
}

TEST(ShortNames, OverloadsWithTheSameReadableFormGetASuffix) {
  std::vector<std::string> out = shortNames({"void f(int)", "void f(float)"}, 40);
  EXPECT_EQ(out[0], "f");
  EXPECT_EQ(out[1], "f~2");
}

TEST(ShortNames, SiblingsDifferingLateAreNotCutToOneHead) {
  std::vector<std::string> names = {
      "very_long_library_kernel_name_with_many_words_variant_alpha_tile_128x64",
      "very_long_library_kernel_name_with_many_words_variant_alpha_tile_64x64",
      "very_long_library_kernel_name_with_many_words_variant_beta_tile_128x64"};
  std::vector<std::string> out = shortNames(names, 30);
  EXPECT_NE(out[0].find("alpha"), std::string::npos) << out[0];
  EXPECT_NE(out[0].find("128x64"), std::string::npos) << out[0];
  EXPECT_NE(out[1].find("64x64"), std::string::npos) << out[1];
  EXPECT_NE(out[2].find("beta"), std::string::npos) << out[2];
  EXPECT_EQ(out[0].find("~"), std::string::npos) << out[0];  // told apart by words, not a suffix
}

TEST(ShortNames, AsciiEllipsisAndTinyWidths) {
  std::vector<std::string> names = {"ns::kernel_with_a_long_name<int, 1>",
                                    "ns::kernel_with_a_long_name<int, 2>"};
  std::vector<std::string> out = shortNames(names, 20, {.ellipsis = "..."});
  EXPECT_NE(out[0], out[1]);
  for (const std::string& s : out) {
    EXPECT_LE(s.size(), 20u) << s;
    EXPECT_EQ(s.find("\xE2\x80\xA6"), std::string::npos) << s;
  }
  expectDistinctAndFitting(names, 1);  // raised to kMinShortNameWidth
}

}  // namespace
}  // namespace gpufl::report
