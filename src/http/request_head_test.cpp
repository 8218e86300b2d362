#include "http/request_head.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpufl::http {
namespace {

using State = HeadScan::State;

TEST(RequestHead, FindsTheEndOfAWholeRequest) {
  const std::string get = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  HeadScan r = scanRequestHead(get + "GET /next", {});
  EXPECT_EQ(r.state, State::Complete);
  EXPECT_EQ(r.total(), get.size());
  EXPECT_EQ(scanRequestHead(get.substr(0, get.size() - 1), {}).state, State::Incomplete);
  r = scanRequestHead("POST /x HTTP/1.1\r\ncontent-length: 4\r\n\r\nab", {});
  EXPECT_EQ(r.state, State::Incomplete);
  r = scanRequestHead("POST /x HTTP/1.1\r\nContent-Length:  4 \r\n\r\nabcdGET", {});
  EXPECT_EQ(r.state, State::Complete);
  EXPECT_EQ(r.body_bytes, 4u);
  EXPECT_EQ(scanRequestHead("GET / HTTP/1.1\n\n", {}).state, State::Complete);
}

TEST(RequestHead, RefusesWhatIsOverALimitOrCannotBeFramed) {
  HeadLimits limits;
  limits.request_line_bytes = 16;
  limits.header_bytes = 64;
  limits.body_bytes = 10;
  // Decided before the line or the head is complete: a client cannot hold memory by not ending it.
  EXPECT_EQ(scanRequestHead("GET /aaaaaaaaaaaaaaaaaaaa", limits).status, 414);
  EXPECT_EQ(scanRequestHead("GET / HTTP/1.1\r\nX: " + std::string(80, 'v'), limits).status, 431);
  EXPECT_EQ(scanRequestHead("GET / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", limits).status, 413);
  EXPECT_EQ(scanRequestHead("GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", limits).status, 400);
  EXPECT_EQ(
      scanRequestHead("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", limits)
          .status,
      400);
  EXPECT_EQ(scanRequestHead("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", limits).status,
            501);
  EXPECT_EQ(scanRequestHead("GET / HTTP/1.1\r\nX: " + std::string(80, 'v'), limits).state,
            State::Reject);
}

}  // namespace
}  // namespace gpufl::http
