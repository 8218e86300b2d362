#include "synthetic_session.hpp"

#include <gtest/gtest.h>

#include <set>

#include "log/ndjson_format.hpp"

namespace gpufl::bench {
namespace {

// Formats everything it sees (as the writer would, one stream) and checks the session's invariants.
struct Checker : EventVisitor {
  std::string text;
  log::KernelDeltaEncoder delta;
  std::set<uint32_t> defs;
  uint64_t kernels = 0, memcpys = 0, begins = 0, ends = 0, gpu_samples = 0;
  SessionEnd end;
  int64_t first_start = 0, last_start = 0;

  void onSessionStart(const SessionStart& e) override { log::formatSessionStart(text, e, true); }
  void onKernelDef(const KernelDef& e) override {
    EXPECT_TRUE(defs.insert(e.id).second) << "kernel_def written twice: " << e.id;
    log::formatRecord(text, e);
  }
  void onKernel(const KernelEvent& e) override {
    EXPECT_TRUE(defs.count(e.def_id)) << "kernel_event before its kernel_def";
    EXPECT_EQ(e.end_ns % 32, e.start_ns % 32);  // both on the 32 ns grid
    EXPECT_GT(e.end_ns, e.start_ns);
    if (!kernels++) first_start = e.start_ns;
    last_start = e.start_ns;
    log::formatKernelEvent(text, e, delta);
  }
  void onMemcpy(const MemcpyEvent& e) override {
    ++memcpys;
    log::formatRecord(text, e);
  }
  void onScopeBegin(const ScopeBegin& e) override {
    ++begins;
    log::formatRecord(text, e);
  }
  void onScopeEnd(const ScopeEnd& e) override {
    ++ends;
    log::formatRecord(text, e);
  }
  void onGpuSample(const GpuSample& e) override {
    ++gpu_samples;
    log::formatRecord(text, e);
  }
  void onSessionEnd(const SessionEnd& e) override { end = e; }
};

TEST(SyntheticSession, IsConsistentAndDeterministic) {
  Checker a, b, c;
  generateSession({20000, 7, 0}, a);
  generateSession({20000, 7, 0}, b);
  generateSession({20000, 8, 0}, c);
  EXPECT_EQ(a.text, b.text);
  EXPECT_NE(a.text, c.text);
  EXPECT_EQ(a.kernels, 20000u);
  EXPECT_EQ(a.end.kernels, a.kernels);
  EXPECT_EQ(a.end.memcpys, a.memcpys);
  EXPECT_EQ(a.end.scopes, a.begins);
  EXPECT_EQ(a.begins, a.ends);
  EXPECT_GE(a.defs.size(), 25u);
  EXPECT_LE(a.defs.size(), 30u);
  // One GPU sample per 100 ms of GPU time.
  const int64_t span = a.last_start - a.first_start;
  EXPECT_NEAR(double(a.gpu_samples), double(span) / 1e8, 2.0);
}

TEST(SyntheticSession, LaterSessionsGetOtherIdsAndLaterStarts) {
  Checker a, b;
  generateSession({100, 1, 0}, a);
  generateSession({100, 1, 1}, b);
  EXPECT_NE(a.text.substr(0, 60), b.text.substr(0, 60));
  EXPECT_GT(b.first_start, a.last_start);
}

}  // namespace
}  // namespace gpufl::bench
