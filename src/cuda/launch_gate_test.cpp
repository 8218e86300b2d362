#include "cuda/launch_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gpufl::cuda {
namespace {

using namespace std::chrono_literals;
using Hold = LaunchGate::Hold;

// Waits up to 2 s for `flag`; true when it was set.
bool waitFor(const std::atomic<bool>& flag) {
  for (int i = 0; i < 2000 && !flag.load(); ++i) std::this_thread::sleep_for(1ms);
  return flag.load();
}

TEST(LaunchGate, SharedHoldersRunTogether) {
  LaunchGate gate;
  gate.enter(false, 1);
  EXPECT_EQ(gate.held(), Hold::Shared);
  std::atomic<bool> other_in{false};
  std::thread other([&] {
    gate.enter(false, 2);
    other_in = true;
    gate.leave(2);
  });
  EXPECT_TRUE(waitFor(other_in));  // a second shared launch is not kept out
  other.join();
  gate.leave(1);
  EXPECT_EQ(gate.held(), Hold::None);
}

TEST(LaunchGate, ExclusiveKeepsOtherLaunchesOutUntilItsExit) {
  LaunchGate gate;
  gate.enter(true, 7);
  std::atomic<bool> other_in{false};
  std::thread other([&] {
    gate.enter(false, 8);
    other_in = true;
    gate.leave(8);
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(other_in.load());
  gate.leave(7);
  EXPECT_TRUE(waitFor(other_in));
  other.join();
}

TEST(LaunchGate, NestedLaunchAndForeignExitLeaveTheHoldAlone) {
  LaunchGate gate;
  gate.enter(false, 1);
  gate.enter(true, 2);  // a launch made inside the first one's callback
  EXPECT_EQ(gate.held(), Hold::Shared);
  gate.leave(2);  // its exit does not release the outer hold
  gate.leave(99);
  EXPECT_EQ(gate.held(), Hold::Shared);
  gate.leave(1);
  EXPECT_EQ(gate.held(), Hold::None);
}

TEST(LaunchGate, UpgradeWaitsForOtherSharedHolders) {
  LaunchGate gate;
  std::atomic<bool> other_holds{false}, release_other{false}, upgraded{false};
  std::thread other([&] {
    gate.enter(false, 5);
    other_holds = true;
    while (!release_other.load()) std::this_thread::sleep_for(1ms);
    gate.leave(5);
  });
  ASSERT_TRUE(waitFor(other_holds));
  std::thread upgrader([&] {
    gate.enter(false, 6);
    gate.upgrade();
    upgraded = gate.held() == Hold::Exclusive;
    gate.leave(6);
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(upgraded.load());
  release_other = true;
  EXPECT_TRUE(waitFor(upgraded));
  other.join();
  upgrader.join();
}

TEST(LaunchGate, ExclusiveScopeWaitsForLaunchesInFlight) {
  LaunchGate gate;
  gate.enter(false, 3);
  std::atomic<bool> scoped{false};
  std::thread closer([&] {
    LaunchGate::Exclusive hold(gate);
    scoped = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(scoped.load());
  gate.leave(3);
  EXPECT_TRUE(waitFor(scoped));
  closer.join();
  {
    LaunchGate::Exclusive outer(gate);
    LaunchGate::Exclusive inner(gate);  // the same thread: no self-deadlock
    EXPECT_EQ(gate.held(), Hold::Exclusive);
  }
  EXPECT_EQ(gate.held(), Hold::None);
}

}  // namespace
}  // namespace gpufl::cuda

namespace gpufl::cuda {
namespace {

TEST(LaunchGate, AHoldNeverReleasedGivesTheGateUpInsteadOfHanging) {
  LaunchGate gate(std::chrono::milliseconds(100));
  std::string said;
  gate.onGiveUp([&](const std::string& why) { said = why; });
  std::atomic<bool> holding{false}, done{false};
  std::thread stuck([&] {  // a launch whose exit never comes while the test runs
    gate.enter(false, 1);
    holding = true;
    while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    gate.leave(1);
  });
  while (!holding.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto start = std::chrono::steady_clock::now();
  gate.enter(true, 2);  // waits 100 ms, then goes on without the gate
  EXPECT_EQ(gate.held(), LaunchGate::Hold::None);
  EXPECT_TRUE(gate.givenUp());
  EXPECT_NE(said.find("100 ms"), std::string::npos) << said;
  { LaunchGate::Exclusive later(gate); }  // given up: no second wait
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  gate.leave(2);
  done = true;
  stuck.join();
}

}  // namespace
}  // namespace gpufl::cuda
