// The CUPTI buffer pool bounds what gpufl holds: at most max_buffers mapped (CUPTI is refused
// beyond, and drops and counts), and after a burst only keep_free idle buffers stay mapped; the
// process's resident memory comes back down with them (no GPU needed: the pool is plain memory).
#include "cuda/activity_buffers.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace gpufl::cuda {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

constexpr size_t kBytes = 4u << 20;

// Resident pages of this process (/proc/self/statm's second field), in bytes.
uint64_t residentBytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

TEST(ActivityBufferPool, RefusesBeyondItsBoundAndCountsIt) {
  ActivityBufferPool pool(kBytes, 3);
  std::vector<uint8_t*> taken;
  for (int i = 0; i < 3; ++i) taken.push_back(pool.acquire());
  for (uint8_t* b : taken) ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(taken[0]) % 8, 0u);
  EXPECT_EQ(pool.acquire(), nullptr);
  EXPECT_EQ(pool.refusals(), 1u);
  EXPECT_EQ(pool.held(), 3u);
  EXPECT_EQ(pool.complete(taken[0], 100), 1u);
  EXPECT_EQ(pool.complete(taken[1], 0), 2u);
  EXPECT_EQ(pool.pending(), 2u);
  const auto done = pool.takeCompleted();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].data, taken[0]);
  EXPECT_EQ(done[0].valid_bytes, 100u);
  EXPECT_EQ(pool.pending(), 0u);
  pool.release(done[0].data);
  EXPECT_EQ(pool.acquire(), taken[0]);  // an idle buffer is reused before any is mapped
}

TEST(ActivityBufferPool, AfterABurstOnlyKeepFreeIdleBuffersStayMappedAndMemoryComesBack) {
  if (kSanitized)
    GTEST_SKIP() << "AddressSanitizer's quarantine and shadow memory move the figures";
  ActivityBufferPool pool(kBytes, 64, 4);
  const uint64_t before = residentBytes();
  // A burst: the writer fell behind while CUPTI filled 40 buffers (40 x 4 MiB touched).
  std::vector<uint8_t*> burst;
  for (int i = 0; i < 40; ++i) {
    uint8_t* b = pool.acquire();
    ASSERT_NE(b, nullptr);
    std::memset(b, 0x5a, kBytes);  // what CUPTI's records do to the pages
    pool.complete(b, kBytes);
    burst.push_back(b);
  }
  EXPECT_EQ(pool.held(), 40u);
  EXPECT_EQ(pool.peak(), 40u);
  EXPECT_GE(residentBytes(), before + 150ull * (1 << 20));
  for (const CompletedBuffer& c : pool.takeCompleted()) pool.release(c.data);
  EXPECT_EQ(pool.held(), 4u);
  EXPECT_EQ(pool.peak(), 40u);
  EXPECT_LT(residentBytes(), before + 24ull * (1 << 20));
  // Steady state afterwards: buffers cycle through the idle ones, nothing more is mapped.
  const uint64_t mapped = pool.allocated();
  for (int i = 0; i < 1000; ++i) {
    uint8_t* b = pool.acquire();
    pool.complete(b, 64);
    for (const CompletedBuffer& c : pool.takeCompleted()) pool.release(c.data);
  }
  EXPECT_EQ(pool.allocated(), mapped);
  EXPECT_EQ(pool.held(), 4u);
}

}  // namespace
}  // namespace gpufl::cuda
