#include "cuda/kernel_activity_switch.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace gpufl::cuda {
namespace {

constexpr int64_t kQuiet = 100;

// CUPTI's enable/disable as a set of enabled kinds, refusing what real CUPTI refuses (both kernel
// kinds at once) and whatever the test marks as refused.
struct FakeCupti {
  std::set<CUpti_ActivityKind> on;
  std::set<CUpti_ActivityKind> refuse;
  std::vector<std::string> calls;
  KernelActivitySwitch::Ops ops() {
    return {[this](CUpti_ActivityKind k) {
              calls.push_back("enable " + std::to_string(k));
              const bool both = on.count(CUPTI_ACTIVITY_KIND_KERNEL) ||
                                on.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
              if (refuse.count(k) || both) return CUPTI_ERROR_NOT_COMPATIBLE;
              on.insert(k);
              return CUPTI_SUCCESS;
            },
            [this](CUpti_ActivityKind k) {
              calls.push_back("disable " + std::to_string(k));
              on.erase(k);
              return CUPTI_SUCCESS;
            }};
  }
};

TEST(KernelActivitySwitch, SerializedOnlyFromAnInstrumentedLaunchUntilQuiet) {
  FakeCupti cupti;
  KernelActivitySwitch sw(cupti.ops(), kQuiet);
  ASSERT_TRUE(sw.start(false, nullptr));
  EXPECT_EQ(cupti.on, std::set{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL});
  EXPECT_FALSE(sw.relaxDue(10'000));  // concurrent: nothing to relax

  ASSERT_TRUE(sw.serialize(1000));
  EXPECT_EQ(cupti.on, std::set{CUPTI_ACTIVITY_KIND_KERNEL});
  EXPECT_EQ(sw.mode(), KernelActivitySwitch::Mode::Serialized);
  sw.instrumented(1050);
  EXPECT_FALSE(sw.relaxDue(1100));  // 50 since the last instrumented launch
  EXPECT_FALSE(sw.relax(1100));
  EXPECT_EQ(cupti.on, std::set{CUPTI_ACTIVITY_KIND_KERNEL});
  EXPECT_TRUE(sw.relaxDue(1150));
  ASSERT_TRUE(sw.relax(1150));
  EXPECT_EQ(cupti.on, std::set{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL});

  ASSERT_TRUE(sw.serialize(2000));  // a new function's launch: a second window
  ASSERT_TRUE(sw.serialize(2010));  // already serialized: no swap
  ASSERT_TRUE(sw.relax(2200));
  const KernelActivitySwitch::Stats s = sw.stats(3000);
  EXPECT_EQ(s.windows, 2u);
  EXPECT_EQ(s.serialized_ns, 150 + 200);
  EXPECT_EQ(s.failed_swaps, 0u);
  EXPECT_NE(sw.summary(3000, 3000).find("2 windows"), std::string::npos) << sw.summary(3000, 3000);
  sw.stop();
  EXPECT_TRUE(cupti.on.empty());
}

TEST(KernelActivitySwitch, TheTwoKernelKindsAreNeverOnTogether) {
  FakeCupti cupti;
  KernelActivitySwitch sw(cupti.ops(), kQuiet);
  ASSERT_TRUE(sw.start(false, nullptr));
  ASSERT_TRUE(sw.serialize(0));
  ASSERT_TRUE(sw.relax(kQuiet));
  // Each swap disables the kind that is on before enabling the other (the fake, like CUPTI,
  // refuses a second kernel kind: the swaps above would have failed).
  const std::string k = std::to_string(CUPTI_ACTIVITY_KIND_KERNEL);
  const std::string ck = std::to_string(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_EQ(cupti.calls, (std::vector<std::string>{"enable " + ck, "disable " + ck, "enable " + k,
                                                   "disable " + k, "enable " + ck}));
}

TEST(KernelActivitySwitch, ARefusedSerializeLeavesKernelsConcurrent) {
  FakeCupti cupti;
  KernelActivitySwitch sw(cupti.ops(), kQuiet);
  ASSERT_TRUE(sw.start(false, nullptr));
  cupti.refuse.insert(CUPTI_ACTIVITY_KIND_KERNEL);
  EXPECT_FALSE(sw.serialize(0));  // SASS must then stay off
  EXPECT_EQ(sw.mode(), KernelActivitySwitch::Mode::Concurrent);
  EXPECT_EQ(cupti.on, std::set{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL});
  EXPECT_EQ(sw.stats(0).failed_swaps, 1u);
}

TEST(KernelActivitySwitch, ARefusedWayBackStaysSerializedForGood) {
  FakeCupti cupti;
  KernelActivitySwitch sw(cupti.ops(), kQuiet);
  ASSERT_TRUE(sw.start(false, nullptr));
  ASSERT_TRUE(sw.serialize(0));
  cupti.refuse.insert(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_FALSE(sw.relax(kQuiet));
  EXPECT_EQ(sw.mode(), KernelActivitySwitch::Mode::SerializedForGood);
  EXPECT_EQ(cupti.on, std::set{CUPTI_ACTIVITY_KIND_KERNEL});
  EXPECT_FALSE(sw.relaxDue(10 * kQuiet));  // no retry on every launch
  EXPECT_TRUE(sw.serialize(20 * kQuiet));  // SASS may still run
  EXPECT_NE(sw.summary(30 * kQuiet, 30 * kQuiet).find("stayed serialized"), std::string::npos);
}

TEST(KernelActivitySwitch, AlwaysSerializedNeverSwaps) {
  FakeCupti cupti;
  KernelActivitySwitch sw(cupti.ops(), kQuiet);
  ASSERT_TRUE(sw.start(true, nullptr));
  EXPECT_EQ(cupti.on, std::set{CUPTI_ACTIVITY_KIND_KERNEL});
  EXPECT_TRUE(sw.serialize(0));
  EXPECT_FALSE(sw.relaxDue(10 * kQuiet));
  EXPECT_FALSE(sw.relax(10 * kQuiet));
  EXPECT_EQ(cupti.calls.size(), 1u);  // the one enable at start
}

}  // namespace
}  // namespace gpufl::cuda
