#include "cuda/correlation_table.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace gpufl::cuda {
namespace {

TEST(CorrelationTable, StoresAndFindsByCorrelationId) {
  CorrelationTable table;
  table.put(42, {7, 3, 0});
  LaunchInfo info;
  ASSERT_TRUE(table.get(42, &info));
  EXPECT_EQ(info.scope_path, 7u);
  EXPECT_EQ(info.stack_id, 3u);
  EXPECT_FALSE(table.get(43, &info));
  EXPECT_FALSE(table.get(0, &info));
}

TEST(CorrelationTable, ReusedSlotIsNotMistakenForTheOldLaunch) {
  CorrelationTable table;
  table.put(5, {1, 0, 0});
  table.put(5 + CorrelationTable::kSlots, {2, 0, 0});
  LaunchInfo info;
  EXPECT_FALSE(table.get(5, &info));
  ASSERT_TRUE(table.get(5 + CorrelationTable::kSlots, &info));
  EXPECT_EQ(info.scope_path, 2u);
}

TEST(CorrelationTable, ConcurrentWritersAndReaderSeeConsistentSlots) {
  CorrelationTable table;
  constexpr uint32_t kPerThread = 200000;
  std::vector<std::thread> writers;
  for (uint32_t t = 0; t < 4; ++t) {
    writers.emplace_back([&table, t] {
      // Payload derived from the id, so the reader can check that what it got belongs to that id.
      for (uint32_t i = 1; i <= kPerThread; ++i) {
        uint32_t corr = i * 4 + t;
        table.put(corr, {corr * 3, corr ^ 0x5a5a, 0});
      }
    });
  }
  uint64_t checked = 0;
  for (uint32_t round = 0; round < 4; ++round) {
    for (uint32_t corr = 4; corr < kPerThread * 4; corr += 7) {
      LaunchInfo info;
      if (table.get(corr, &info)) {
        ASSERT_EQ(info.scope_path, corr * 3);
        ASSERT_EQ(info.stack_id, corr ^ 0x5a5a);
        ++checked;
      }
    }
  }
  for (auto& w : writers) w.join();
  // Once the writers are done, the newest kSlots ids are all present with their own payload.
  constexpr uint32_t kLast = kPerThread * 4 + 3;
  for (uint32_t corr = kLast - CorrelationTable::kSlots + 1; corr <= kLast; ++corr) {
    LaunchInfo info;
    ASSERT_TRUE(table.get(corr, &info)) << corr;
    ASSERT_EQ(info.scope_path, corr * 3);
  }
  RecordProperty("checked_during_writes", static_cast<int>(checked));
}

}  // namespace
}  // namespace gpufl::cuda
