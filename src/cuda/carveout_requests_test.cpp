#include "cuda/carveout_requests.hpp"

#include <gtest/gtest.h>

namespace gpufl::cuda {
namespace {

const void* fn(uintptr_t v) {
  return reinterpret_cast<const void*>(v);
}

TEST(CarveoutRequests, ALaunchOfAFunctionWithARequestCarriesIt) {
  CarveoutRequests r;
  r.noteLaunch(fn(0x10), 1);  // no request yet
  EXPECT_EQ(r.forLaunch(1), -1);
  r.set(fn(0x10), 25);
  r.noteLaunch(fn(0x10), 2);
  r.noteLaunch(fn(0x20), 3);  // another function
  EXPECT_EQ(r.forLaunch(2), 25);
  EXPECT_EQ(r.forLaunch(3), -1);
  r.set(fn(0x10), 50);  // changed before the next launch
  r.noteLaunch(fn(0x10), 4);
  EXPECT_EQ(r.forLaunch(4), 50);
  EXPECT_EQ(r.forLaunch(2), 25);
  // A slot reused by a later launch forgets the earlier one.
  r.noteLaunch(fn(0x10), 2 + CarveoutRequests::kLaunchSlots);
  EXPECT_EQ(r.forLaunch(2), -1);
}

}  // namespace
}  // namespace gpufl::cuda
