#include "core/thread_buffer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

namespace gpufl::core {
namespace {

Record rec(uint64_t id, Source source = Source::Scope) {
  Record r;
  r.kind = RecordKind::ScopeBegin;
  r.source = source;
  r.id = id;
  return r;
}

TEST(ThreadBufferTest, CapacityRoundsUpToPowerOfTwo) {
  EXPECT_EQ(ThreadBuffer({1, 1}, 100).capacity(), 128u);
  EXPECT_EQ(ThreadBuffer({1, 1}, 64).capacity(), 64u);
  EXPECT_EQ(ThreadBuffer({1, 1}, 0).capacity(), 2u);
}

TEST(ThreadBufferTest, FullBufferDropsAndCountsPerSource) {
  ThreadBuffer b({42, 1}, 16);
  for (uint64_t i = 0; i < 16; ++i) ASSERT_TRUE(b.push(rec(i)));
  EXPECT_FALSE(b.push(rec(100, Source::Scope)));
  EXPECT_FALSE(b.push(rec(101, Source::Launch)));
  EXPECT_FALSE(b.push(rec(102, Source::Launch)));
  EXPECT_EQ(b.reserve(Source::Other), nullptr);
  EXPECT_EQ(b.dropped(Source::Scope), 1u);
  EXPECT_EQ(b.dropped(Source::Launch), 2u);
  EXPECT_EQ(b.dropped(Source::Other), 1u);

  std::vector<uint64_t> seen;
  EXPECT_EQ(b.drain([&](const Record& r) { seen.push_back(r.id); }), 16u);
  for (uint64_t i = 0; i < 16; ++i) EXPECT_EQ(seen[i], i);
  DropCounts d = b.takeDrops();
  EXPECT_EQ(d.by_source[0], 1u);
  EXPECT_EQ(d.by_source[1], 2u);
  EXPECT_EQ(d.total(), 4u);
  EXPECT_EQ(b.takeDrops().total(), 0u);  // deltas
  EXPECT_TRUE(b.push(rec(200)));         // space again after the drain
  EXPECT_EQ(b.size(), 1u);
}

TEST(ThreadBufferTest, WrapsAroundManyTimes) {
  ThreadBuffer b({1, 1}, 8);
  uint64_t next = 0, expect = 0;
  for (int round = 0; round < 1000; ++round) {
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(b.push(rec(next++)));
    b.drain([&](const Record& r) { ASSERT_EQ(r.id, expect++); });
  }
  EXPECT_EQ(expect, next);
}

TEST(ThreadBufferRegistryTest, RetiredBufferIsDrainedThenFreed) {
  ThreadBufferRegistry reg(64);
  reg.attach();
  std::thread t([&] {
    ThreadBuffer* b = reg.create(7);
    for (uint64_t i = 0; i < 10; ++i) b->push(rec(i));
    reg.retire(b);  // what a thread's exit hook does
  });
  t.join();
  EXPECT_EQ(reg.bufferCount(), 1u);
  uint64_t n = 0;
  const DrainStats s = reg.drainAll([&](const Record& r, const ThreadInfo& info) {
    EXPECT_EQ(info.tid, 7);
    EXPECT_EQ(r.id, n++);
  });
  EXPECT_EQ(s.records, 10u);
  EXPECT_EQ(s.freed, 1u);
  EXPECT_EQ(reg.bufferCount(), 0u);
  reg.detach();
}

TEST(ThreadBufferRegistryTest, WithoutConsumerRetireFreesAtOnce) {
  ThreadBufferRegistry reg(64);
  ThreadBuffer* b = reg.create(1);
  b->push(rec(1));
  reg.retire(b);
  EXPECT_EQ(reg.bufferCount(), 0u);
}

TEST(ThreadBufferRegistryTest, AttachDiscardsStaleRecordsAndBaselinesDrops) {
  ThreadBufferRegistry reg(4);
  ThreadBuffer* b = reg.create(1);
  for (int i = 0; i < 6; ++i) b->push(rec(i));  // 4 kept, 2 dropped before any session
  reg.attach();
  b->push(rec(99));
  std::vector<uint64_t> ids;
  const DrainStats s =
      reg.drainAll([&](const Record& r, const ThreadInfo&) { ids.push_back(r.id); });
  EXPECT_EQ(ids, std::vector<uint64_t>{99});
  EXPECT_EQ(s.dropped.total(), 0u);
  EXPECT_EQ(reg.threadsSeen(), 1u);
  reg.detach();
  reg.retire(b);
}

// Producers and a concurrent consumer: every record arrives once, in per-thread order, or is
// counted as dropped.
TEST(ThreadBufferRegistryTest, StressManyProducersOneConsumer) {
  constexpr int kThreads = 4;
  constexpr uint64_t kPerThread = 200000;
  ThreadBufferRegistry reg(1024);
  reg.attach();
  std::atomic<int> done{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      ThreadBuffer* b = reg.create(1000 + t);
      for (uint64_t i = 0; i < kPerThread; ++i)
        b->push(rec(i, i % 2 ? Source::Scope : Source::Launch));
      reg.retire(b);
      done.fetch_add(1);
    });
  }
  std::map<int64_t, uint64_t> received, last;
  uint64_t dropped = 0;
  auto consume = [&] {
    const DrainStats s = reg.drainAll([&](const Record& r, const ThreadInfo& info) {
      auto it = last.find(info.tid);
      if (it != last.end()) {
        ASSERT_GT(r.id, it->second) << "out of order";
      }
      last[info.tid] = r.id;
      ++received[info.tid];
    });
    dropped += s.dropped.total();
  };
  while (done.load() < kThreads) consume();
  for (auto& p : producers) p.join();
  consume();
  uint64_t total = 0;
  for (auto& [tid, n] : received) total += n;
  EXPECT_EQ(total + dropped, kThreads * kPerThread);
  EXPECT_EQ(reg.bufferCount(), 0u);
  reg.detach();
}

}  // namespace
}  // namespace gpufl::core
