#include "monitor/listen_address.hpp"

#include <gtest/gtest.h>

namespace gpufl::monitor {
namespace {

TEST(ListenAddress, ParsesHostAndPort) {
  std::string error;
  auto a = parseListenAddress("127.0.0.1:9464", &error);
  ASSERT_TRUE(a) << error;
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9464);
  auto b = parseListenAddress("[::1]:0", &error);
  ASSERT_TRUE(b) << error;
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 0);
}

TEST(ListenAddress, RejectsMalformed) {
  std::string error;
  EXPECT_FALSE(parseListenAddress("127.0.0.1", &error));
  EXPECT_EQ(error, "'127.0.0.1': expected HOST:PORT (IPv6 as [::1]:PORT)");
  EXPECT_FALSE(parseListenAddress("127.0.0.1:99999", &error));
  EXPECT_EQ(error, "'127.0.0.1:99999': port must be a number from 0 to 65535");
  EXPECT_FALSE(parseListenAddress("::1:80", &error));
  EXPECT_FALSE(parseListenAddress("[::1]80", &error));
  EXPECT_FALSE(parseListenAddress("host:", &error));
  EXPECT_FALSE(parseListenAddress(":80", &error));
}

TEST(ListenAddress, LoopbackOnly) {
  EXPECT_TRUE(isLoopback("127.0.0.1"));
  EXPECT_TRUE(isLoopback("127.1.2.3"));
  EXPECT_TRUE(isLoopback("::1"));
  EXPECT_TRUE(isLoopback("localhost"));
  EXPECT_FALSE(isLoopback("0.0.0.0"));
  EXPECT_FALSE(isLoopback("::"));
  EXPECT_FALSE(isLoopback("10.0.0.1"));
  EXPECT_FALSE(isLoopback("128.0.0.1"));
  EXPECT_FALSE(isLoopback("example.com"));
}

TEST(ListenAddress, NonLoopbackNeedsAToken) {
  EXPECT_EQ(checkListenPolicy({"127.0.0.1", 9464}, ""), "");
  EXPECT_NE(checkListenPolicy({"0.0.0.0", 9464}, ""), "");
  EXPECT_EQ(checkListenPolicy({"0.0.0.0", 9464}, "s3cret"), "");
}

}  // namespace
}  // namespace gpufl::monitor
