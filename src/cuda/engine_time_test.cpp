#include "cuda/engine_time.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace gpufl::cuda {

TEST(EngineTimeTest, SummaryNamesOnlyHooksThatWereCalled) {
  EngineTime time;
  EXPECT_EQ(time.summary(), "");
  time.add(EngineHook::Start, 12'000'000);
  time.add(EngineHook::Drain, 1'000'000'000);
  time.add(EngineHook::Drain, 500'000'000);
  EXPECT_EQ(time.summary(), "start 0.012 s, drain 1.500 s (2)");
  EXPECT_EQ(time.calls(EngineHook::Drain), 2u);
  EXPECT_EQ(time.calls(EngineHook::Stop), 0u);
}

TEST(EngineTimeTest, SpanAddsTheWallTimeOfItsScope) {
  EngineTime time;
  {
    EngineTime::Span span(time, EngineHook::Context);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(time.calls(EngineHook::Context), 1u);
  EXPECT_GE(time.ns(EngineHook::Context), 5'000'000u);
}

TEST(EngineTimeTest, NegativeDurationsCountAsZero) {
  EngineTime time;
  time.add(EngineHook::Stop, -5);
  EXPECT_EQ(time.ns(EngineHook::Stop), 0u);
  EXPECT_EQ(time.calls(EngineHook::Stop), 1u);
}

}  // namespace gpufl::cuda
