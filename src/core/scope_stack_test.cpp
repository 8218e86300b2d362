#include "core/scope_stack.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/intern.hpp"

namespace gpufl::core {
namespace {

struct Drained {
  Record record;
  ThreadInfo thread;
};

// Plays the session's part: the global registry's consumer and the recording gate.
class ScopeStackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ThreadBufferRegistry::global().attach();
    setRecordingGeneration(++generation_);
  }
  void TearDown() override {
    setRecordingGeneration(0);
    drain();
    ThreadBufferRegistry::global().detach();
  }
  std::vector<Drained> drain() {
    std::vector<Drained> out;
    ThreadBufferRegistry::global().drainAll([&](const Record& r, const ThreadInfo& t) {
      out.push_back({r, t});
    });
    return out;
  }
  static std::string nameOf(uint32_t id) { return std::string(InternTable::instance().name(id)); }
  static inline uint32_t generation_ = 100;
};

TEST_F(ScopeStackTest, NothingIsRecordedWithoutASession) {
  setRecordingGeneration(0);
  EXPECT_EQ(scopeBegin("scope.off"), 0u);
  EXPECT_EQ(currentScopePath(), kRootPath);
  scopeEnd(0);  // harmless
  scopeEnd(12345);
  EXPECT_TRUE(drain().empty());
}

TEST_F(ScopeStackTest, NestingBuildsPathsAndRecords) {
  const uint64_t a = scopeBegin("scope.outer", "tagA");
  const uint32_t pa = currentScopePath();
  const uint64_t b = scopeBegin("scope.inner");
  const uint32_t pb = currentScopePath();
  EXPECT_EQ(currentScopeDepth(), 2u);
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a >> kScopeCounterBits, b >> kScopeCounterBits);  // same thread index
  EXPECT_EQ(InternTable::instance().path(pb).parent, pa);
  EXPECT_EQ(InternTable::instance().path(pb).depth, 1u);
  scopeEnd(b);
  EXPECT_EQ(currentScopePath(), pa);
  scopeEnd(a);
  EXPECT_EQ(currentScopePath(), kRootPath);
  EXPECT_EQ(currentScopeDepth(), 0u);

  const auto recs = drain();
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[0].record.kind, RecordKind::ScopeBegin);
  EXPECT_EQ(recs[0].record.id, a);
  EXPECT_EQ(nameOf(recs[0].record.name), "scope.outer");
  EXPECT_EQ(nameOf(recs[0].record.tag), "tagA");
  EXPECT_EQ(recs[0].record.depth, 0u);
  EXPECT_EQ(recs[1].record.path, pb);
  EXPECT_EQ(recs[1].record.depth, 1u);
  EXPECT_EQ(recs[2].record.kind, RecordKind::ScopeEnd);
  EXPECT_EQ(recs[2].record.id, b);
  EXPECT_EQ(recs[3].record.id, a);
  EXPECT_EQ(recs[3].record.path, pa);
  EXPECT_LE(recs[0].record.ts_ns, recs[1].record.ts_ns);
  EXPECT_LE(recs[1].record.ts_ns, recs[2].record.ts_ns);
  EXPECT_LE(recs[2].record.ts_ns, recs[3].record.ts_ns);
  EXPECT_EQ(recs[0].thread.tid, currentTid());
}

TEST_F(ScopeStackTest, SameNameUnderDifferentParentsHasDifferentPaths) {
  const uint64_t x = scopeBegin("scope.x");
  const uint64_t s1 = scopeBegin("scope.shared");
  const uint32_t p1 = currentScopePath();
  scopeEnd(s1);
  scopeEnd(x);
  const uint64_t s2 = scopeBegin("scope.shared");
  const uint32_t p2 = currentScopePath();
  scopeEnd(s2);
  EXPECT_NE(p1, p2);
  EXPECT_EQ(InternTable::instance().path(p1).name, InternTable::instance().path(p2).name);
}

// scopeBegin reuses the ids of the previous scope at the same depth when parent, name and tag
// match: a buffer rewritten in place (same address, same length) with another text must not reuse
// them, nor a changed tag, for names of every length the comparison handles differently.
TEST_F(ScopeStackTest, RepeatedScopesAreComparedByText) {
  std::vector<std::pair<std::string, std::string>> want;  // (name, tag) in begin order
  for (size_t len = 1; len <= 40; ++len) {
    std::string buf(len, 'a');
    for (const char* tag : {"", "t1", "t2"}) {
      for (size_t pos : {size_t{0}, len / 2, len - 1}) {
        for (int round = 0; round < 2; ++round) {  // the second round hits the remembered ids
          buf.assign(len, 'a');
          buf[pos] = 'b';
          scopeEnd(scopeBegin(buf, tag));
          want.emplace_back(buf, tag);
        }
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> got;
  for (const Drained& d : drain()) {
    if (d.record.kind != RecordKind::ScopeBegin) continue;
    got.emplace_back(nameOf(d.record.name), nameOf(d.record.tag));
    EXPECT_EQ(nameOf(InternTable::instance().path(d.record.path).name), got.back().first);
  }
  EXPECT_EQ(got, want);
}

TEST_F(ScopeStackTest, OutOfOrderAndUnknownEnds) {
  const uint64_t a = scopeBegin("scope.a");
  const uint64_t b = scopeBegin("scope.b");
  const uint32_t pb = currentScopePath();
  scopeEnd(a);  // not innermost: removes just `a`
  EXPECT_EQ(currentScopeDepth(), 1u);
  EXPECT_EQ(currentScopePath(), pb);
  scopeEnd(a);  // already ended: nothing
  scopeEnd(b);
  EXPECT_EQ(currentScopeDepth(), 0u);
  scopeEnd(b);
  const auto recs = drain();
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[2].record.kind, RecordKind::ScopeEnd);
  EXPECT_EQ(recs[2].record.id, a);
  EXPECT_EQ(recs[3].record.id, b);
}

TEST_F(ScopeStackTest, EndAfterTheSessionChangedIsNotRecorded) {
  const uint64_t a = scopeBegin("scope.span");
  setRecordingGeneration(0);
  scopeEnd(a);
  EXPECT_EQ(currentScopeDepth(), 0u);
  const auto recs = drain();
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].record.kind, RecordKind::ScopeBegin);
}

TEST_F(ScopeStackTest, TooDeepIsDroppedAndCounted) {
  std::vector<uint64_t> ids;
  for (uint32_t i = 0; i < kMaxScopeDepth + 10; ++i) ids.push_back(scopeBegin("scope.deep"));
  EXPECT_EQ(currentScopeDepth(), kMaxScopeDepth);
  for (uint32_t i = kMaxScopeDepth; i < ids.size(); ++i) EXPECT_EQ(ids[i], 0u);
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) scopeEnd(*it);
  EXPECT_EQ(currentScopeDepth(), 0u);
  uint64_t dropped = 0;
  const auto stats =
      ThreadBufferRegistry::global().drainAll([](const Record&, const ThreadInfo&) {});
  dropped = stats.dropped.by_source[static_cast<int>(Source::Scope)];
  EXPECT_EQ(dropped, 10u);
  EXPECT_EQ(stats.records, 2u * kMaxScopeDepth);
}

TEST_F(ScopeStackTest, ThreadsShareIdsAndExitingThreadsAreDrained) {
  constexpr int kThreads = 4, kIters = 100;
  std::vector<uint32_t> leaf_paths(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        const uint64_t a = scopeBegin("scope.mt.outer");
        const uint64_t b = scopeBegin(std::string("scope.mt.") + "inner");  // a temporary
        leaf_paths[t] = currentScopePath();
        scopeEnd(b);
        scopeEnd(a);
      }
    });
  }
  for (auto& th : threads) th.join();  // threads are gone: their buffers are retired, not lost
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(leaf_paths[t], leaf_paths[0]);
  std::map<int64_t, int> per_thread;
  std::set<uint64_t> ids;
  for (const Drained& d : drain()) {
    ++per_thread[d.thread.tid];
    if (d.record.kind == RecordKind::ScopeBegin) {
      EXPECT_TRUE(ids.insert(d.record.id).second);
    }
  }
  EXPECT_EQ(per_thread.size(), static_cast<size_t>(kThreads));
  for (auto& [tid, n] : per_thread) EXPECT_EQ(n, 4 * kIters);
  EXPECT_EQ(ids.size(), static_cast<size_t>(kThreads * kIters * 2));
}

TEST_F(ScopeStackTest, BackendRecordsGoThroughTheSameBuffer) {
  Record r;
  r.kind = static_cast<RecordKind>(static_cast<uint16_t>(RecordKind::kFirstBackendKind) + 1);
  r.source = Source::Launch;
  r.id = 777;
  EXPECT_TRUE(pushRecord(r));
  const auto recs = drain();
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].record.id, 777u);
  EXPECT_EQ(recs[0].record.source, Source::Launch);
}

}  // namespace
}  // namespace gpufl::core
