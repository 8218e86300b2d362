#include "http/hostile_clients.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gpufl::http::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::string_view kSlowHead = "GET /metrics HTTP/1.1\r\nHost: hostile\r\nX-Slow: ";

int connectNonBlocking(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool waitFor(int fd, short events, Clock::time_point until) {
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(until - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

int connectLoopback(int port) {
  const int fd = connectNonBlocking(port);
  if (fd < 0) return -1;
  int err = 0;
  socklen_t len = sizeof err;
  if (!waitFor(fd, POLLOUT, Clock::now() + milliseconds(5000)) ||
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

bool sendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string readUntilClose(int fd, milliseconds timeout, bool* closed) {
  const auto until = Clock::now() + timeout;
  std::string got;
  *closed = false;
  char buf[16384];
  while (waitFor(fd, POLLIN, until)) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      *closed = true;  // an orderly close, or a reset: the server let go either way
      break;
    }
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

HostileClients::HostileClients(int port, size_t idle, size_t slow, milliseconds gap)
    : port_(port), idle_(idle), slow_(slow), gap_(gap) {
  thread_ = std::thread([this] { run(); });
}

HostileClients::~HostileClients() {
  stop();
}

void HostileClients::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

bool HostileClients::waitOpen(milliseconds timeout) const {
  const auto until = Clock::now() + timeout;
  while (open_.load() < idle_ + slow_ && Clock::now() < until)
    std::this_thread::sleep_for(milliseconds(5));
  return open_.load() >= idle_ + slow_;
}

void HostileClients::run() {
  struct Slot {
    int fd = -1;
    bool slow = false;
    size_t sent = 0;
    Clock::time_point next_send{};
  };
  std::vector<Slot> slots(idle_ + slow_);
  for (size_t i = 0; i < slots.size(); ++i) slots[i].slow = i >= idle_;
  std::vector<pollfd> fds;
  char buf[4096];
  bool first_round = true;
  while (!stop_.load()) {
    const auto now = Clock::now();
    size_t open = 0;
    for (Slot& s : slots) {
      if (s.fd < 0) {
        s.fd = connectNonBlocking(port_);
        s.sent = 0;
        s.next_send = now;
        if (s.fd >= 0 && !first_round) closed_by_server_++;
      }
      if (s.fd < 0) continue;
      ++open;
      if (s.slow && now >= s.next_send) {
        const char byte = s.sent < kSlowHead.size() ? kSlowHead[s.sent] : 'a';
        if (::send(s.fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1) ++s.sent;
        s.next_send = now + gap_;
      }
    }
    first_round = false;
    open_ = open;
    fds.clear();
    for (const Slot& s : slots) fds.push_back({s.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(gap_.count(), 20))) <= 0)
      continue;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::recv(slots[i].fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0 || (n < 0 && errno == EAGAIN)) continue;  // an answer (408): its close follows
      ::close(slots[i].fd);
      slots[i].fd = -1;
    }
  }
  for (Slot& s : slots)
    if (s.fd >= 0) ::close(s.fd);
  open_ = 0;
}

ScrapeTimes scrape(int port, const std::string& path, const std::string& token, int count,
                   milliseconds period, milliseconds timeout) {
  ScrapeTimes out;
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: scraper\r\nConnection: close\r\n";
  if (!token.empty()) request += "Authorization: Bearer " + token + "\r\n";
  request += "\r\n";
  for (int i = 0; i < count; ++i) {
    const auto t0 = Clock::now();
    bool ok = false;
    const int fd = connectNonBlocking(port);
    if (fd >= 0 && waitFor(fd, POLLOUT, t0 + timeout)) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      bool closed = false;
      const milliseconds left =
          std::chrono::duration_cast<milliseconds>(t0 + timeout - Clock::now());
      ok = sendAll(fd, request) &&
           readUntilClose(fd, left, &closed).rfind("HTTP/1.1 200 ", 0) == 0 && closed;
    }
    if (fd >= 0) ::close(fd);
    const auto t1 = Clock::now();
    if (ok)
      out.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    else
      ++out.failed;
    std::this_thread::sleep_until(t0 + period);
  }
  return out;
}

}  // namespace gpufl::http::testing
