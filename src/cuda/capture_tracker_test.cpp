#include "cuda/capture_tracker.hpp"

#include <gtest/gtest.h>

namespace gpufl::cuda {
namespace {

TEST(CaptureTracker, OpenWhileAnyStreamCaptures) {
  CaptureTracker t;
  int a = 0, b = 0;
  EXPECT_FALSE(t.open());
  t.began(&a);
  t.began(&b);
  EXPECT_TRUE(t.open());
  t.ended(&a);
  EXPECT_TRUE(t.open());  // b still captures
  t.ended(&b);
  EXPECT_FALSE(t.open());
  EXPECT_EQ(t.capturesSeen(), 2u);
}

TEST(CaptureTracker, AnEndWithoutABeginChangesNothing) {
  CaptureTracker t;
  int a = 0, other = 0;
  t.began(&a);
  t.ended(&other);  // EndCapture on a stream that was not capturing (the call fails)
  EXPECT_TRUE(t.open());
  t.ended(&a);
  t.ended(&a);
  EXPECT_FALSE(t.open());
}

}  // namespace
}  // namespace gpufl::cuda
