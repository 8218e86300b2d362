#include "core/launch_table.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace gpufl::core {
namespace {

TEST(LaunchTable, StoresAndFindsByCorrelationId) {
  LaunchTable table;
  table.put(42, {7, 3, 0});
  LaunchInfo info;
  ASSERT_TRUE(table.get(42, &info));
  EXPECT_EQ(info.scope_path, 7u);
  EXPECT_EQ(info.stack_id, 3u);
  EXPECT_FALSE(table.get(43, &info));
  EXPECT_FALSE(table.get(0, &info));
}

TEST(LaunchTable, GivesTheLaunchTimeAndThreadForTheRecordChecks) {
  LaunchTable table;
  LaunchSlot slot{9, LaunchKind::Kernel, {4, 0, 0}};
  slot.tid = 1234;
  slot.launch_ns = 5'000'000;
  table.put(slot);
  table.put(10, {1, 0, 0});  // an attribution-only call: no time, no thread
  LaunchInfo info;
  int64_t launch_ns = -1;
  uint32_t tid = 1;
  ASSERT_TRUE(table.get(9, &info, &launch_ns, &tid));
  EXPECT_EQ(info.scope_path, 4u);
  EXPECT_EQ(launch_ns, 5'000'000);
  EXPECT_EQ(tid, 1234u);
  ASSERT_TRUE(table.get(10, &info, &launch_ns, &tid));
  EXPECT_EQ(launch_ns, 0);
  EXPECT_EQ(tid, 0u);
}

TEST(LaunchTable, ReusedSlotIsNotMistakenForTheOldLaunch) {
  LaunchTable table;
  table.put(5, {1, 0, 0});
  table.put(5 + LaunchTable::kSlots, {2, 0, 0});
  LaunchInfo info;
  EXPECT_FALSE(table.get(5, &info));
  ASSERT_TRUE(table.get(5 + LaunchTable::kSlots, &info));
  EXPECT_EQ(info.scope_path, 2u);
}

TEST(LaunchTable, ConcurrentWritersAndReaderSeeConsistentSlots) {
  LaunchTable table;
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
  for (uint32_t corr = kLast - LaunchTable::kSlots + 1; corr <= kLast; ++corr) {
    LaunchInfo info;
    ASSERT_TRUE(table.get(corr, &info)) << corr;
    ASSERT_EQ(info.scope_path, corr * 3);
  }
  RecordProperty("checked_during_writes", static_cast<int>(checked));
}

}  // namespace
}  // namespace gpufl::core

namespace gpufl::core {
namespace {

LaunchSlot launch(uint32_t corr, LaunchKind kind, uint64_t stream = 0) {
  LaunchSlot s;
  s.correlation_id = corr;
  s.kind = kind;
  s.stream = stream;
  s.launch_ns = corr * 10;
  s.name = "k";
  return s;
}

TEST(LaunchTable, PendingAreLaunchesOfGpuWorkNotYetComplete) {
  LaunchTable table;
  table.put(launch(1, LaunchKind::Kernel));
  table.put(launch(2, LaunchKind::Api));  // a synchronize: never in flight
  table.put(launch(3, LaunchKind::Copy));
  table.put(launch(4, LaunchKind::Kernel));
  table.complete(3);
  table.complete(99);  // unknown: nothing happens
  LaunchSlot out[8];
  ASSERT_EQ(table.pendingLaunches(out, 8), 2u);
  EXPECT_EQ(out[0].correlation_id, 1u);
  EXPECT_EQ(out[1].correlation_id, 4u);
  EXPECT_EQ(out[1].launch_ns, 40);
  EXPECT_STREQ(out[1].name, "k");
  // Attribution still works for a completed launch.
  LaunchInfo info;
  EXPECT_TRUE(table.get(3, &info));
}

TEST(LaunchTable, KeepsTheLatestOrTheOldestWhenThereAreMore) {
  LaunchTable table;
  for (uint32_t corr = 100; corr > 0; --corr) table.put(launch(corr, LaunchKind::Kernel));
  LaunchSlot out[5];
  ASSERT_EQ(table.pendingLaunches(out, 5), 100u);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(out[i].correlation_id, 96 + i);
  ASSERT_EQ(table.pendingLaunches(out, 5, /*oldest=*/true), 100u);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(out[i].correlation_id, 1 + i);
}

TEST(LaunchTable, AReusedSlotForgetsTheOldLaunch) {
  LaunchTable table;
  table.put(launch(7, LaunchKind::Kernel));
  table.put(launch(7 + LaunchTable::kSlots, LaunchKind::Api));
  LaunchSlot out[2];
  EXPECT_EQ(table.pendingLaunches(out, 2), 0u);
}

}  // namespace
}  // namespace gpufl::core
