#include "core/intern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace gpufl::core {
namespace {

TEST(InternTest, EmptyNameIsZeroAndNamesRoundTrip) {
  InternTable& t = InternTable::instance();
  EXPECT_EQ(t.internName(""), kEmptyName);
  const uint32_t a = t.internName("intern.alpha");
  const uint32_t b = t.internName("intern.beta");
  EXPECT_NE(a, kEmptyName);
  EXPECT_NE(a, b);
  EXPECT_EQ(t.internName("intern.alpha"), a);
  EXPECT_EQ(t.name(a), "intern.alpha");
  EXPECT_EQ(t.name(b), "intern.beta");
  EXPECT_EQ(t.name(0xfffffff0u), "");  // unknown ids read as empty
}

TEST(InternTest, CacheCopiesTemporariesAndVerifiesContent) {
  NameCache cache;
  std::string s = "intern.temp.0";
  const uint32_t first = cache.intern(s);
  s[s.size() - 1] = '1';  // same pointer and length, different content (a reused Python buffer)
  const uint32_t second = cache.intern(s);
  EXPECT_NE(first, second);
  EXPECT_EQ(InternTable::instance().name(first), "intern.temp.0");
  EXPECT_EQ(InternTable::instance().name(second), "intern.temp.1");
  EXPECT_EQ(cache.intern(std::string("intern.temp.0")), first);
}

TEST(InternTest, CacheCollisionsFallBackToTheTable) {
  NameCache cache;  // 256 slots: 5000 names must evict and collide
  std::vector<uint32_t> ids;
  for (int i = 0; i < 5000; ++i) ids.push_back(cache.intern("intern.many." + std::to_string(i)));
  for (int i = 4999; i >= 0; --i) {
    const std::string name = "intern.many." + std::to_string(i);
    ASSERT_EQ(cache.intern(name), ids[i]) << name;
    ASSERT_EQ(InternTable::instance().name(ids[i]), name);
  }
  std::vector<uint32_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
}

TEST(InternTest, LongNamesAndBinaryContent) {
  NameCache cache;
  const std::string long_name(200000, 'x');
  const std::string with_nul("a\0b", 3);
  const uint32_t l = cache.intern(long_name);
  const uint32_t n = cache.intern(with_nul);
  EXPECT_EQ(InternTable::instance().name(l), long_name);
  EXPECT_EQ(InternTable::instance().name(n), with_nul);
  EXPECT_NE(cache.intern(std::string("a\0c", 3)), n);
}

TEST(InternTest, ConcurrentThreadsGetTheSameIds) {
  constexpr int kThreads = 8, kNames = 2000;
  std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto cache = std::make_unique<NameCache>();
      auto paths = std::make_unique<PathCache>();
      std::vector<int> order(kNames);
      for (int i = 0; i < kNames; ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), std::mt19937(t));
      for (int round = 0; round < 3; ++round) {
        for (int i : order) {
          const uint32_t id = cache->intern("intern.concurrent." + std::to_string(i));
          if (round > 0) {
            ASSERT_EQ(ids[t][i], id);
          }
          ids[t][i] = id;
          const uint32_t p = paths->intern(kRootPath, id);
          ASSERT_EQ(paths->intern(kRootPath, id), p);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(ids[t], ids[0]);
  for (int i = 0; i < kNames; ++i)
    EXPECT_EQ(InternTable::instance().name(ids[0][i]), "intern.concurrent." + std::to_string(i));
}

TEST(InternTest, PathsHaveParentNameAndDepth) {
  InternTable& t = InternTable::instance();
  PathCache cache;
  const uint32_t a = t.internName("intern.path.a");
  const uint32_t b = t.internName("intern.path.b");
  const uint32_t pa = cache.intern(kRootPath, a);
  const uint32_t pab = cache.intern(pa, b);
  const uint32_t pb = cache.intern(kRootPath, b);
  EXPECT_NE(pa, kRootPath);
  EXPECT_NE(pab, pb);  // same name under different parents: different paths
  EXPECT_EQ(cache.intern(pa, b), pab);
  EXPECT_EQ(t.internPath(pa, b), pab);
  EXPECT_EQ(t.path(pab).parent, pa);
  EXPECT_EQ(t.path(pab).name, b);
  EXPECT_EQ(t.path(pab).depth, 1u);
  EXPECT_EQ(t.path(pa).depth, 0u);
  EXPECT_EQ(t.internPath(0xfffffff0u, a), kInternFailed);          // unknown parent
  EXPECT_EQ(t.internPath(kRootPath, 0xfffffff0u), kInternFailed);  // unknown name
}

// sameBytes takes a different path for 0-3, 4-7, 8-16, 17-32, 33-64 and longer inputs: a difference
// in any byte is seen at every length.
TEST(InternTest, SameBytesSeesEveryByte) {
  std::mt19937 rng(7);
  for (size_t n = 0; n <= 80; ++n) {
    std::string a(n, '\0');
    for (char& c : a) c = static_cast<char>(rng());
    std::string b = a;
    EXPECT_TRUE(sameBytes(a.data(), b.data(), n)) << n;
    for (size_t i = 0; i < n; ++i) {
      b[i] ^= 0x40;
      EXPECT_FALSE(sameBytes(a.data(), b.data(), n)) << n << " " << i;
      b[i] = a[i];
    }
  }
  EXPECT_TRUE(sameBytes(nullptr, nullptr, 0));
}

TEST(InternTest, HashDependsOnEveryByteAndLength) {
  const std::string base = "abcdefghijklmnopq";
  for (size_t n = 0; n <= base.size(); ++n) {
    for (size_t m = n + 1; m <= base.size(); ++m)
      EXPECT_NE(hashBytes(base.data(), n), hashBytes(base.data(), m)) << n << " " << m;
  }
  std::string a = "0123456789abcdef0123", b = a;
  b[9] = 'X';
  EXPECT_NE(hashBytes(a.data(), a.size()), hashBytes(b.data(), b.size()));
}

}  // namespace
}  // namespace gpufl::core
