#include "runtime/writer_thread.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gpufl::runtime {
namespace {

using namespace std::chrono_literals;

TEST(WriterThreadTest, RunsRoundsPeriodicallyAndStops) {
  WriterThread w;
  std::atomic<int> rounds{0};
  std::string error;
  ASSERT_TRUE(w.start(
      [&] {
        ++rounds;
        return 2ms;
      },
      1ms, &error))
      << error;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (rounds.load() < 5 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_GE(rounds.load(), 5);
  w.stop();
  const int after = rounds.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(rounds.load(), after);
  EXPECT_EQ(static_cast<int>(w.rounds()), after);
  EXPECT_FALSE(w.running());
  w.stop();  // idempotent
}

TEST(WriterThreadTest, WakeRunsARoundSoon) {
  WriterThread w;
  std::atomic<int> rounds{0};
  ASSERT_TRUE(w.start(
      [&] {
        ++rounds;
        return 10s;
      },
      10s, nullptr));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(rounds.load(), 0);
  const auto t0 = std::chrono::steady_clock::now();
  while (rounds.load() == 0 && std::chrono::steady_clock::now() - t0 < 5s) {
    w.wake();
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(rounds.load(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  const auto s0 = std::chrono::steady_clock::now();
  w.stop();  // must not wait for the 10 s period
  EXPECT_LT(std::chrono::steady_clock::now() - s0, 1s);
}

TEST(WriterThreadTest, AccountsBusyAndCpuTime) {
  WriterThread w;
  std::atomic<int> rounds{0};
  ASSERT_TRUE(w.start(
      [&] {
        const auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - t0 < 2ms) {
        }
        ++rounds;
        return 1ms;
      },
      1ms, nullptr));
  while (rounds.load() < 3) std::this_thread::sleep_for(1ms);
  w.stop();
  EXPECT_GE(w.busyNs(), 3u * 2'000'000u);
  EXPECT_GT(w.cpuNs(), 0u);
}

}  // namespace
TEST(WriterThreadTest, NextRoundWaitsUntilTheFullestBufferWouldBeAQuarterFull) {
  using std::chrono::milliseconds;
  const milliseconds busy(5), idle(50);
  EXPECT_EQ(nextRoundWait(milliseconds(50), 0.5, busy, idle), milliseconds(25));
  // The rate seen in a short round holds: 12% after 5 ms -> a quarter after ~10 ms, not back to 50.
  EXPECT_EQ(nextRoundWait(milliseconds(5), 0.12, busy, idle), milliseconds(10));
  EXPECT_EQ(nextRoundWait(milliseconds(10), 0.25, busy, idle), milliseconds(10));
  EXPECT_EQ(nextRoundWait(milliseconds(5), 1.0, busy, idle), busy);    // never below busy
  EXPECT_EQ(nextRoundWait(milliseconds(50), 0.01, busy, idle), idle);  // never above idle
  EXPECT_EQ(nextRoundWait(milliseconds(50), 0.0, busy, idle), idle);
}

}  // namespace gpufl::runtime
