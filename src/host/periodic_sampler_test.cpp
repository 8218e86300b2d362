#include "host/periodic_sampler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gpufl::host {
namespace {

using namespace std::chrono_literals;

TEST(PeriodicSampler, TicksImmediatelyAndStopsPromptly) {
  std::atomic<int> calls{0};
  PeriodicSampler sampler(10s, [&](int64_t) { ++calls; });
  ASSERT_TRUE(sampler.start());
  EXPECT_FALSE(sampler.start());  // already running
  while (calls.load() == 0) std::this_thread::sleep_for(1ms);
  auto t0 = std::chrono::steady_clock::now();
  sampler.stop();  // must not wait for the 10 s period
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(sampler.running());
  sampler.stop();  // idempotent
}

TEST(PeriodicSampler, TicksRepeatedlyWithClockTimestamps) {
  std::atomic<int64_t> fake_now{0};
  std::atomic<int64_t> last_seen{-1};
  PeriodicSampler sampler(
      5ms, [&](int64_t now) { last_seen = now; }, [&] { return fake_now.fetch_add(100); });
  ASSERT_TRUE(sampler.start());
  while (sampler.ticks() < 3) std::this_thread::sleep_for(1ms);
  sampler.stop();
  EXPECT_GE(last_seen.load(), 200);
  EXPECT_EQ(last_seen.load() % 100, 0);
}

TEST(PeriodicSampler, RestartsAfterStop) {
  std::atomic<int> calls{0};
  PeriodicSampler sampler(1h, [&](int64_t) { ++calls; });
  ASSERT_TRUE(sampler.start());
  sampler.stop();
  ASSERT_TRUE(sampler.start());
  sampler.stop();
  EXPECT_EQ(calls.load(), 2);
}

TEST(PeriodicSampler, OverrunsSkipScheduledTicks) {
  PeriodicSampler sampler(2ms, [&](int64_t) { std::this_thread::sleep_for(9ms); });
  ASSERT_TRUE(sampler.start());
  while (sampler.ticks() < 3) std::this_thread::sleep_for(1ms);
  sampler.stop();
  EXPECT_GT(sampler.skipped(), 0u);
}

TEST(PeriodicSampler, ASlowdownMakesItTickThatManyTimesLessOften) {
  PeriodicSampler sampler(10ms, [](int64_t) {});
  sampler.setSlowdown(10);  // every 100 ms instead of every 10 ms
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(sampler.start());
  std::this_thread::sleep_for(250ms);
  sampler.stop();
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  // Ticks never come early: the first at once, then at most one per 100 ms (10 ms: 25 or more).
  EXPECT_LE(sampler.ticks(), static_cast<uint64_t>(2 + elapsed / 100ms));
  EXPECT_GE(sampler.ticks(), 1u);
}

TEST(PeriodicSampler, RejectsBadArguments) {
  PeriodicSampler zero(0ms, [](int64_t) {});
  EXPECT_FALSE(zero.start());
  PeriodicSampler no_tick(1ms, {});
  EXPECT_FALSE(no_tick.start());
}

TEST(PeriodicSampler, DelayedFirstTick) {
  std::atomic<int> calls{0};
  PeriodicSampler sampler(1h, [&](int64_t) { ++calls; });
  ASSERT_TRUE(sampler.start(/*tick_now=*/false));
  std::this_thread::sleep_for(20ms);
  sampler.stop();  // prompt even while waiting for the first tick
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
}  // namespace gpufl::host
