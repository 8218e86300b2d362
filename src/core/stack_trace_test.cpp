#include "core/stack_trace.hpp"

#include <gtest/gtest.h>

namespace gpufl {
namespace {

__attribute__((noinline)) uint32_t captureHere(StackTable& table) {
  return table.capture(0);
}
// Captures `n` times from one call site (n is not known at compile time, so the loop is not
// unrolled).
__attribute__((noinline)) void captureRepeatedly(StackTable& table, uint32_t* ids, int n) {
  const volatile int count = n;  // read each round: the compiler cannot unroll the loop
  for (int i = 0; i < count; ++i) ids[i] = captureHere(table);
}
__attribute__((noinline)) uint32_t captureElsewhere(StackTable& table) {
  return table.capture(0);
}

TEST(StackTable, SameCallSiteSameIdOtherSiteNewId) {
  StackTable table;
  uint32_t ids[2];
  captureRepeatedly(table, ids, 2);
  uint32_t a = ids[0], b = ids[1];
  uint32_t c = captureElsewhere(table);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto stacks = table.takeNew();
  ASSERT_EQ(stacks.size(), 2u);  // each distinct stack once
  EXPECT_EQ(stacks[0].first, a);
  ASSERT_FALSE(stacks[0].second.empty());
  EXPECT_TRUE(table.takeNew().empty());  // handed over only once
}

TEST(StackTable, SymbolizesFramesWithModuleNames) {
  StackTable table;
  captureHere(table);
  auto stacks = table.takeNew();
  ASSERT_EQ(stacks.size(), 1u);
  bool has_module = false;
  for (const auto& frame : stacks[0].second) has_module |= frame.find(" (") != std::string::npos;
  EXPECT_TRUE(has_module) << stacks[0].second.front();
}

}  // namespace
}  // namespace gpufl
