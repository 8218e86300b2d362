// The guarded server under misbehaving clients, on loopback. Bounds are generous (a loaded 2-core
// machine must not make them flaky); gpufl_http_load measures latencies precisely.
#include "http/guarded_server.hpp"

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <vector>

#include "http/hostile_clients.hpp"

namespace gpufl::http {
namespace {

using namespace std::chrono_literals;
using testing::connectLoopback;
using testing::readUntilClose;
using testing::sendAll;
using Clock = std::chrono::steady_clock;

std::unique_ptr<GuardedServer> serve(ServerLimits limits = {}) {
  auto s = std::make_unique<GuardedServer>(limits);
  s->routes().Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("up 1\n", "text/plain");
  });
  std::string error;
  EXPECT_TRUE(s->listen("127.0.0.1", 0, &error)) << error;
  s->start();
  return s;
}

// One request on a new connection; the whole answer (the server closes after it).
std::string ask(int port, const std::string& request, bool* closed) {
  const int fd = connectLoopback(port);
  EXPECT_GE(fd, 0);
  EXPECT_TRUE(sendAll(fd, request));
  std::string got = readUntilClose(fd, 5s, closed);
  ::close(fd);
  return got;
}

const std::string kGet = "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";

TEST(GuardedServer, AnswersWhileManyIdleAndSlowConnectionsAreOpen) {
  auto s = serve();
  testing::HostileClients hostile(s->port(), 100, 100, 50ms);
  ASSERT_TRUE(hostile.waitOpen(10s));
  testing::ScrapeTimes t = testing::scrape(s->port(), "/metrics", "", 5, 20ms, 3s);
  EXPECT_EQ(t.failed, 0u);
  for (double ms : t.ms) EXPECT_LT(ms, 1500) << "a scrape took " << ms << " ms";
  EXPECT_GE(s->stats().open, 100u);  // the idle ones at least (the slow ones get 408 after 2 s)
}

TEST(GuardedServer, AClientTricklingItsHeadGets408AndIsClosedAtTheDeadline) {
  ServerLimits limits;
  limits.request_deadline = 300ms;
  auto s = serve(limits);
  const int fd = connectLoopback(s->port());
  ASSERT_GE(fd, 0);
  const auto t0 = Clock::now();
  std::string got;
  bool closed = false;
  ASSERT_TRUE(sendAll(fd, "GET /metrics HTTP/1.1\r\nX-Slow: "));
  for (int i = 0; i < 100 && !closed; ++i) {  // a byte every 50 ms, for 5 s at most
    if (::send(fd, "a", 1, MSG_NOSIGNAL) != 1) break;
    got += readUntilClose(fd, 50ms, &closed);
  }
  if (!closed) got += readUntilClose(fd, 2s, &closed);
  ::close(fd);
  EXPECT_TRUE(closed);
  EXPECT_EQ(got.rfind("HTTP/1.1 408 ", 0), 0u) << got;
  EXPECT_LT(Clock::now() - t0, 3s);
  EXPECT_EQ(s->stats().timed_out, 1u);
}

TEST(GuardedServer, OversizedRequestsAreAnsweredAndClosed) {
  auto s = serve();
  bool closed = false;
  std::string got = ask(s->port(), "GET /" + std::string(5000, 'u') + " HTTP/1.1\r\n\r\n", &closed);
  EXPECT_EQ(got.rfind("HTTP/1.1 414 ", 0), 0u) << got;
  EXPECT_TRUE(closed);
  got = ask(s->port(),
            "GET /metrics HTTP/1.1\r\n" + std::string(200, 'X') + ": " + std::string(9000, 'v') +
                "\r\n\r\n",
            &closed);
  EXPECT_EQ(got.rfind("HTTP/1.1 431 ", 0), 0u) << got;
  EXPECT_TRUE(closed);
  got = ask(s->port(), "POST /metrics HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", &closed);
  EXPECT_EQ(got.rfind("HTTP/1.1 413 ", 0), 0u) << got;
  EXPECT_TRUE(closed);
  got = ask(s->port(), "POST /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &closed);
  EXPECT_EQ(got.rfind("HTTP/1.1 501 ", 0), 0u) << got;
  EXPECT_TRUE(closed);
  EXPECT_EQ(s->stats().rejected, 4u);
}

TEST(GuardedServer, AMalformedRequestIsAnsweredAndClosed) {
  auto s = serve();
  bool closed = false;
  // Keep-alive asked for, yet the connection ends after the 400 (cpp-httplib alone keeps it).
  const std::string got = ask(s->port(), "NONSENSE\r\nConnection: keep-alive\r\n\r\n", &closed);
  EXPECT_EQ(got.rfind("HTTP/1.1 400 ", 0), 0u) << got;
  EXPECT_TRUE(closed);
}

TEST(GuardedServer, KeepsAliveAndAnswersPipelinedRequestsInOrder) {
  auto s = serve();
  const int fd = connectLoopback(s->port());
  ASSERT_GE(fd, 0);
  const std::string keep = "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n";
  ASSERT_TRUE(sendAll(fd, keep + "GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n" + kGet));
  bool closed = false;
  const std::string got = readUntilClose(fd, 5s, &closed);
  ::close(fd);
  EXPECT_TRUE(closed);  // after the third, which asked for it
  const size_t first = got.find("HTTP/1.1 200 "), second = got.find("HTTP/1.1 404 "),
               third = got.find("HTTP/1.1 200 ", first + 1);
  ASSERT_NE(first, std::string::npos) << got;
  ASSERT_NE(second, std::string::npos) << got;
  ASSERT_NE(third, std::string::npos) << got;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
}

TEST(GuardedServer, AtTheCapTheOldestIdleConnectionIsClosedFirst) {
  ServerLimits limits;
  limits.max_connections = 4;
  auto s = serve(limits);
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) {
    idle.push_back(connectLoopback(s->port()));
    std::this_thread::sleep_for(20ms);  // so that they are accepted in this order
  }
  const int slow = connectLoopback(s->port());  // sending its head: closed only after the idle
  ASSERT_TRUE(sendAll(slow, "GET /metrics HTTP/1.1\r\n"));
  for (int i = 0; i < 200 && s->stats().open < 4; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(s->stats().open, 4u);
  bool closed = false;
  EXPECT_EQ(ask(s->port(), kGet, &closed).rfind("HTTP/1.1 200 ", 0), 0u);
  readUntilClose(idle[0], 2s, &closed);
  EXPECT_TRUE(closed) << "the oldest idle connection stays open";
  readUntilClose(idle[1], 100ms, &closed);
  EXPECT_FALSE(closed);
  readUntilClose(slow, 100ms, &closed);
  EXPECT_FALSE(closed);
  EXPECT_EQ(s->stats().evicted, 1u);
  for (int fd : idle) ::close(fd);
  ::close(slow);
}

TEST(GuardedServer, StopReturnsAtOnceWhateverTheClientsDo) {
  auto s = serve();
  testing::HostileClients hostile(s->port(), 50, 50, 20ms);
  ASSERT_TRUE(hostile.waitOpen(10s));
  const auto t0 = Clock::now();
  s->stop();
  EXPECT_LT(Clock::now() - t0, 1s);
}

TEST(GuardedServer, ASecondServerOnATakenPortFails) {
  auto s = serve();
  GuardedServer again;
  std::string error;
  EXPECT_FALSE(again.listen("127.0.0.1", s->port(), &error));
  EXPECT_NE(error.find("cannot listen on 127.0.0.1:" + std::to_string(s->port())),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace gpufl::http
