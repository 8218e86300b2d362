#include "cuda/range_profiler_engine.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpufl::cuda {
namespace {

TEST(RangeProfilerEngine, StartFailsCleanlyWithoutAGpu) {
  // No driver in the context (EngineContext::driver null): the engine has no GPU, on any machine.
  std::vector<std::string> notes;
  EngineContext ctx;
  ctx.note = [&](const std::string& f, const std::string& s, const std::string& r) {
    notes.push_back(f + " " + s + ": " + r);
  };
  RangeProfilerEngine engine;
  EXPECT_FALSE(engine.start(ctx));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("range_profiler off: ", 0), 0u) << notes[0];
  engine.onScopeBegin(1, "scope");  // harmless after a failed start
  engine.onScopeEnd(1);
  engine.stop();
}

}  // namespace
}  // namespace gpufl::cuda
