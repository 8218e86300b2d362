// NVTX ranges against the real core scope stack: push/pop nest like GFL_SCOPE and give the same
// paths, and a pop never ends a scope NVTX did not open.
#include "cuda/nvtx_ranges.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/intern.hpp"
#include "core/scope_stack.hpp"

namespace gpufl::cuda {
namespace {

using core::currentScopeDepth;
using core::currentScopePath;
using core::InternTable;
using core::Record;
using core::RecordKind;

// "outer/inner" of a path id ("" at the root).
std::string pathText(uint32_t path) {
  std::string out;
  while (path != core::kRootPath) {
    const auto p = InternTable::instance().path(path);
    std::string name(InternTable::instance().name(p.name));
    out = out.empty() ? name : name + "/" + out;
    path = p.parent;
  }
  return out;
}

// Plays the session: the registry's consumer and the recording gate.
class NvtxRangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core::ThreadBufferRegistry::global().attach();
    core::setRecordingGeneration(++generation_);
  }
  void TearDown() override {
    core::setRecordingGeneration(0);
    drain();
    core::ThreadBufferRegistry::global().detach();
  }
  std::vector<Record> drain() {
    std::vector<Record> out;
    core::ThreadBufferRegistry::global().drainAll(
        [&](const Record& r, const core::ThreadInfo&) { out.push_back(r); });
    return out;
  }
  // Ends what a test left open on this thread (the thread outlives each test).
  void closeAll() {
    while (nvtxOpenRanges() > 0) {
      nvtxRangePopped(0);
      if (nvtxOpenRanges() > 0) nvtxRangePopped(0xd0);
    }
  }
  static inline uint32_t generation_ = 500;
};

TEST_F(NvtxRangesTest, PushPopAreScopesNestedWithUserScopes) {
  const uint64_t user = core::scopeBegin("train");
  nvtxRangePushed(0, "fwd", "nvtx");
  EXPECT_EQ(pathText(currentScopePath()), "train/fwd");
  nvtxRangePushed(0, "linear", "nvtx");
  EXPECT_EQ(pathText(currentScopePath()), "train/fwd/linear");
  nvtxRangePopped(0);
  EXPECT_EQ(pathText(currentScopePath()), "train/fwd");
  nvtxRangePopped(0);
  EXPECT_EQ(pathText(currentScopePath()), "train");
  core::scopeEnd(user);
  EXPECT_EQ(currentScopeDepth(), 0u);

  const auto recs = drain();
  ASSERT_EQ(recs.size(), 6u);
  EXPECT_EQ(recs[1].kind, RecordKind::ScopeBegin);
  EXPECT_EQ(InternTable::instance().name(recs[1].name), "fwd");
  EXPECT_EQ(InternTable::instance().name(recs[1].tag), "nvtx");
  EXPECT_EQ(recs[1].depth, 1u);
  EXPECT_EQ(recs[3].kind, RecordKind::ScopeEnd);
  EXPECT_EQ(recs[4].kind, RecordKind::ScopeEnd);
  EXPECT_EQ(recs[4].id, recs[1].id);
}

TEST_F(NvtxRangesTest, UnmatchedPopNeverEndsAUserScope) {
  const uint64_t user = core::scopeBegin("epoch");
  nvtxRangePopped(0);  // its push came before gpufl subscribed
  nvtxRangePopped(0xd0);
  EXPECT_EQ(currentScopeDepth(), 1u);
  EXPECT_EQ(pathText(currentScopePath()), "epoch");
  // A user scope opened inside an NVTX range and still open when the range pops stays open.
  nvtxRangePushed(0, "step", "nvtx");
  const uint64_t inner = core::scopeBegin("loss");
  nvtxRangePopped(0);
  EXPECT_EQ(currentScopeDepth(), 2u);
  EXPECT_EQ(pathText(currentScopePath()), "epoch/step/loss");
  core::scopeEnd(inner);
  EXPECT_EQ(pathText(currentScopePath()), "epoch");
  core::scopeEnd(user);
  EXPECT_EQ(nvtxOpenRanges(), 0u);
}

TEST_F(NvtxRangesTest, DomainsNestIndependently) {
  nvtxRangePushed(0, "a", "nvtx");
  nvtxRangePushed(0xd0, "b", "nvtx:lib");
  nvtxRangePushed(0, "c", "nvtx");
  EXPECT_EQ(pathText(currentScopePath()), "a/b/c");
  nvtxRangePopped(0xd0);  // ends b, the innermost range of its domain
  EXPECT_EQ(nvtxOpenRanges(), 2u);
  EXPECT_EQ(pathText(currentScopePath()), "a/b/c");  // c was opened under b: its path stays
  nvtxRangePopped(0);
  EXPECT_EQ(pathText(currentScopePath()), "a");
  nvtxRangePopped(0xd0);  // nothing of that domain left: ignored
  EXPECT_EQ(pathText(currentScopePath()), "a");
  nvtxRangePopped(0);
  EXPECT_EQ(currentScopeDepth(), 0u);
  const auto recs = drain();
  ASSERT_EQ(recs.size(), 6u);
  EXPECT_EQ(InternTable::instance().name(recs[1].tag), "nvtx:lib");
  EXPECT_EQ(recs[3].id, recs[1].id);  // first end: b
}

TEST_F(NvtxRangesTest, PushesWithoutASessionKeepTheirPopsMatched) {
  core::setRecordingGeneration(0);
  nvtxRangePushed(0, "unrecorded", "nvtx");
  EXPECT_EQ(currentScopeDepth(), 0u);
  EXPECT_EQ(nvtxOpenRanges(), 1u);
  core::setRecordingGeneration(generation_);
  // Same generation as the push: the push's slot is still there and its pop consumes it.
  const uint64_t user = core::scopeBegin("kept");
  nvtxRangePopped(0);
  EXPECT_EQ(nvtxOpenRanges(), 0u);
  EXPECT_EQ(currentScopeDepth(), 1u);
  core::scopeEnd(user);
}

TEST_F(NvtxRangesTest, ANewSessionEndsRangesTheOldOneLeftOpen) {
  nvtxRangePushed(0, "stale", "nvtx");
  EXPECT_EQ(currentScopeDepth(), 1u);
  core::setRecordingGeneration(++generation_);  // session ended, its pops unseen; a new one began
  nvtxRangePushed(0, "fresh", "nvtx");
  EXPECT_EQ(pathText(currentScopePath()), "fresh");  // not stale/fresh
  nvtxRangePopped(0);
  EXPECT_EQ(currentScopeDepth(), 0u);
  EXPECT_EQ(nvtxOpenRanges(), 0u);
}

TEST_F(NvtxRangesTest, TooDeepIsCountedAndStillBalanced) {
  for (uint32_t i = 0; i < kMaxNvtxDepth + 5; ++i) nvtxRangePushed(0, "deep", "nvtx");
  EXPECT_EQ(nvtxOpenRanges(), kMaxNvtxDepth + 5);
  EXPECT_EQ(currentScopeDepth(), kMaxNvtxDepth);
  for (uint32_t i = 0; i < 5; ++i) nvtxRangePopped(0);
  EXPECT_EQ(currentScopeDepth(), kMaxNvtxDepth);  // the overflow pops end nothing recorded
  for (uint32_t i = 0; i < kMaxNvtxDepth; ++i) nvtxRangePopped(0);
  EXPECT_EQ(currentScopeDepth(), 0u);
  EXPECT_EQ(nvtxOpenRanges(), 0u);
}

TEST_F(NvtxRangesTest, EachThreadHasItsOwnStack) {
  nvtxRangePushed(0, "main", "nvtx");
  std::thread other([] {
    nvtxRangePopped(0);  // nothing pushed on this thread
    EXPECT_EQ(currentScopeDepth(), 0u);
    nvtxRangePushed(0, "worker", "nvtx");
    EXPECT_EQ(pathText(currentScopePath()), "worker");
    nvtxRangePopped(0);
  });
  other.join();
  EXPECT_EQ(pathText(currentScopePath()), "main");
  closeAll();
  EXPECT_EQ(currentScopeDepth(), 0u);
}

}  // namespace
}  // namespace gpufl::cuda
