#include "http/guarded_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace gpufl::http {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kReadChunk = 16384;
constexpr int kMaxAcceptsPerRound = 64;    // then the open connections get their turn
constexpr int kListenBacklog = 511;        // cpp-httplib listens with 5, too few for a burst
constexpr milliseconds kDrainTime{500};    // after an error response: the client's rest is read
constexpr milliseconds kLongestWait{250};  // poll() wakes at least this often

// cpp-httplib's server, its request processing and settings opened to the loop below.
class Router final : public httplib::Server {
 public:
  bool handle(httplib::Stream& strm, bool close_connection, bool& connection_closed) {
    return process_request(strm, close_connection, connection_closed, nullptr);
  }
  int takeListeningSocket() { return svr_sock_.exchange(INVALID_SOCKET); }
  milliseconds readTimeout() const { return toMs(read_timeout_sec_, read_timeout_usec_); }
  milliseconds writeTimeout() const { return toMs(write_timeout_sec_, write_timeout_usec_); }
  milliseconds keepAliveTimeout() const { return toMs(keep_alive_timeout_sec_, 0); }
  size_t keepAliveMaxCount() const { return keep_alive_max_count_; }
  size_t payloadMaxLength() const { return payload_max_length_; }

 private:
  static milliseconds toMs(time_t sec, time_t usec) {
    return milliseconds(static_cast<int64_t>(sec) * 1000 + static_cast<int64_t>(usec) / 1000);
  }
};

struct Endpoint {
  std::string ip;
  int port = 0;
};

Endpoint endpointOf(const sockaddr_storage& addr) {
  char text[INET6_ADDRSTRLEN] = {};
  Endpoint e;
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    e.port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    e.port = ntohs(a->sin6_port);
  }
  e.ip = text;
  return e;
}

// One whole request, already received, as cpp-httplib's Stream; what it writes is kept in `out`.
class RequestStream final : public httplib::Stream {
 public:
  RequestStream(std::string_view request, std::string& out, const Endpoint& remote,
                const Endpoint& local, int fd)
      : in_(request), out_(out), remote_(remote), local_(local), fd_(fd) {}
  bool is_readable() const override { return at_ < in_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, in_.size() - at_);
    std::memcpy(ptr, in_.data() + at_, n);
    at_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    out_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = remote_.ip;
    port = remote_.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = local_.ip;
    port = local_.port;
  }
  socket_t socket() const override { return fd_; }

 private:
  std::string_view in_;
  size_t at_ = 0;
  std::string& out_;
  const Endpoint& remote_;
  const Endpoint& local_;
  int fd_;
};

const char* statusText(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    default:
      return "Error";
  }
}

std::string errorResponse(int status, const std::string& reason) {
  const std::string body = reason + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + statusText(status) +
         "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

// The status of a response cpp-httplib wrote; a malformed request's (400, 414, 416) closes the
// connection, which cpp-httplib would keep open.
bool closesAfter(const std::string& response) {
  int status = 0;
  if (std::sscanf(response.c_str(), "HTTP/%*d.%*d %d", &status) != 1) return true;
  return status == 400 || status == 413 || status == 414 || status == 416 || status == 431 ||
         status >= 500;
}

}  // namespace

struct GuardedServer::Impl {
  enum class State { Idle, Reading, Writing, Draining };
  struct Conn {
    int fd = -1;
    State state = State::Idle;
    Clock::time_point since;     // entered its state (eviction takes the oldest first)
    Clock::time_point deadline;  // of its state
    std::string in, out;
    size_t out_at = 0;
    size_t requests = 0;
    bool close_after_write = false;
    Endpoint remote, local;
  };

  ServerLimits limits;
  Router router;
  int listen_fd = -1;
  int wake_fd = -1;
  int port = 0;
  std::thread thread;
  std::atomic<bool> stopping{false};
  Clock::time_point accept_paused_until{};
  bool stopped = false;
  std::list<Conn> conns;
  mutable std::mutex stats_mutex;
  ServerStats stats;

  explicit Impl(ServerLimits l) : limits(l) {
    router.set_read_timeout(limits.request_deadline);
    router.set_write_timeout(limits.write_deadline);
    router.set_keep_alive_timeout(limits.idle_timeout.count());
    router.set_keep_alive_max_count(limits.requests_per_connection);
    router.set_payload_max_length(limits.head.body_bytes);
    // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second server on
    // the same port would start "successfully" and share the requests with the first.
    router.set_socket_options([](socket_t sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
  }

  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }

  void count(uint64_t ServerStats::*field) {
    std::lock_guard<std::mutex> lock(stats_mutex);
    ++(stats.*field);
  }

  void enter(Conn& c, State s, Clock::time_point now, Clock::duration limit) {
    c.state = s;
    c.since = now;
    c.deadline = now + limit;
  }

  void loop();
  void acceptAll(Clock::time_point now);
  bool makeRoom();
  // false: the connection is done with and is to be closed
  bool onReadable(Conn& c, Clock::time_point now);
  bool onWritable(Conn& c, Clock::time_point now);
  bool serve(Conn& c, Clock::time_point now);
  bool respond(Conn& c, std::string response, bool close, Clock::time_point now);
  bool onDeadline(Conn& c, Clock::time_point now);
  void close(std::list<Conn>::iterator it);
};

void GuardedServer::Impl::close(std::list<Conn>::iterator it) {
  ::close(it->fd);
  conns.erase(it);
  std::lock_guard<std::mutex> lock(stats_mutex);
  stats.open = conns.size();
}

// At the cap: closes the connection whose loss costs least (one draining its close, else the
// oldest idle, else the oldest still sending its request). False when every one is being answered.
bool GuardedServer::Impl::makeRoom() {
  for (State s : {State::Draining, State::Idle, State::Reading}) {
    auto oldest = conns.end();
    for (auto it = conns.begin(); it != conns.end(); ++it)
      if (it->state == s && (oldest == conns.end() || it->since < oldest->since)) oldest = it;
    if (oldest != conns.end()) {
      close(oldest);
      count(&ServerStats::evicted);
      return true;
    }
  }
  return false;
}

void GuardedServer::Impl::acceptAll(Clock::time_point now) {
  for (int i = 0; i < kMaxAcceptsPerRound; ++i) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        accept_paused_until = now + milliseconds(100);
      return;  // EAGAIN: none left
    }
    count(&ServerStats::accepted);
    if (conns.size() >= limits.max_connections && !makeRoom()) {
      ::close(fd);
      count(&ServerStats::refused);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Conn c;
    c.fd = fd;
    c.remote = endpointOf(peer);
    sockaddr_storage local{};
    len = sizeof local;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0)
      c.local = endpointOf(local);
    enter(c, State::Idle, now, router.keepAliveTimeout());
    conns.push_back(std::move(c));
    std::lock_guard<std::mutex> lock(stats_mutex);
    stats.open = conns.size();
  }
}

bool GuardedServer::Impl::respond(Conn& c, std::string response, bool close_after,
                                  Clock::time_point now) {
  c.out = std::move(response);
  c.out_at = 0;
  c.close_after_write = close_after;
  enter(c, State::Writing, now, router.writeTimeout());
  return onWritable(c, now);
}

// Every whole request in the buffer, one at a time: each response is sent before the next request
// is looked at.
bool GuardedServer::Impl::serve(Conn& c, Clock::time_point now) {
  HeadLimits head = limits.head;
  head.body_bytes = router.payloadMaxLength();
  const HeadScan scan = scanRequestHead(c.in, head);
  if (scan.state == HeadScan::State::Incomplete) return true;
  if (scan.state == HeadScan::State::Reject) {
    count(&ServerStats::rejected);
    c.in.clear();
    return respond(c, errorResponse(scan.status, scan.reason), true, now);
  }
  std::string out;
  bool connection_closed = false;
  const bool last = ++c.requests >= router.keepAliveMaxCount() || stopping.load();
  RequestStream strm(std::string_view(c.in).substr(0, scan.total()), out, c.remote, c.local, c.fd);
  const bool ok = router.handle(strm, last, connection_closed);
  count(&ServerStats::answered);
  c.in.erase(0, scan.total());
  if (out.empty()) return false;
  const bool close_after = !ok || last || connection_closed || closesAfter(out);
  return respond(c, std::move(out), close_after, now);
}

bool GuardedServer::Impl::onReadable(Conn& c, Clock::time_point now) {
  char buf[kReadChunk];
  const ssize_t n = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
  if (n == 0) return false;  // the client closed
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  if (c.state == State::Draining) return true;  // read and dropped until the client closes
  if (c.state == State::Idle) enter(c, State::Reading, now, router.readTimeout());
  c.in.append(buf, static_cast<size_t>(n));
  return serve(c, now);
}

bool GuardedServer::Impl::onWritable(Conn& c, Clock::time_point now) {
  while (c.out_at < c.out.size()) {
    const ssize_t n =
        ::send(c.fd, c.out.data() + c.out_at, c.out.size() - c.out_at, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.out_at += static_cast<size_t>(n);
  }
  c.out.clear();
  c.out_at = 0;
  if (c.close_after_write || stopping.load()) {
    // Lingering close: the client reads the response before the connection goes (a close() with
    // its unread request bytes still queued would reset the connection and lose the response).
    ::shutdown(c.fd, SHUT_WR);
    c.in.clear();
    enter(c, State::Draining, now, kDrainTime);
    return true;
  }
  if (c.in.empty()) {
    enter(c, State::Idle, now, router.keepAliveTimeout());
    return true;
  }
  enter(c, State::Reading, now, router.readTimeout());  // a pipelined request is waiting
  return serve(c, now);
}

bool GuardedServer::Impl::onDeadline(Conn& c, Clock::time_point now) {
  switch (c.state) {
    case State::Idle:
      count(&ServerStats::idle_closed);
      return false;
    case State::Reading:
      count(&ServerStats::timed_out);
      c.in.clear();
      return respond(c, errorResponse(408, "the request did not arrive in time"), true, now);
    case State::Writing:
      count(&ServerStats::timed_out);
      return false;
    case State::Draining:
      return false;
  }
  return false;
}

void GuardedServer::Impl::loop() {
  std::vector<pollfd> fds;
  std::vector<std::list<Conn>::iterator> of;  // fds[i + 2] belongs to of[i]
  while (!stopping.load()) {
    Clock::time_point now = Clock::now();
    Clock::time_point wake = now + kLongestWait;
    fds.clear();
    of.clear();
    fds.push_back({wake_fd, POLLIN, 0});
    // Out of descriptors: the listener waits a little rather than wake this loop at once again.
    fds.push_back({listen_fd, static_cast<short>(now >= accept_paused_until ? POLLIN : 0), 0});
    for (auto it = conns.begin(); it != conns.end(); ++it) {
      fds.push_back(
          {it->fd, static_cast<short>(it->state == State::Writing ? POLLOUT : POLLIN), 0});
      of.push_back(it);
      wake = std::min(wake, it->deadline);
    }
    const auto wait = std::chrono::duration_cast<milliseconds>(wake - now).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait, 0) + 1)) < 0 &&
        errno != EINTR)
      break;
    if (stopping.load()) break;
    now = Clock::now();
    for (size_t i = 0; i < of.size(); ++i) {
      Conn& c = *of[i];
      const short ev = fds[i + 2].revents;
      bool keep = true;
      // The deadline first: a client trickling bytes has an event in every round.
      if (ev & (POLLERR | POLLNVAL)) {
        keep = false;
      } else if (now >= c.deadline) {
        keep = onDeadline(c, now);
      } else if (ev & (POLLIN | POLLOUT | POLLHUP)) {
        keep = c.state == State::Writing ? onWritable(c, now) : onReadable(c, now);
      }
      if (!keep) close(of[i]);
    }
    if (fds[1].revents & POLLIN) acceptAll(now);
  }
  while (!conns.empty()) close(conns.begin());
  ::close(listen_fd);
  listen_fd = -1;
}

GuardedServer::GuardedServer(ServerLimits limits) : impl_(std::make_unique<Impl>(limits)) {}

GuardedServer::~GuardedServer() {
  stop();
}

httplib::Server& GuardedServer::routes() {
  return impl_->router;
}

bool GuardedServer::listen(const std::string& host, int port, std::string* error) {
  Impl& m = *impl_;
  errno = 0;
  const int bound =
      port == 0 ? m.router.bind_to_any_port(host) : (m.router.bind_to_port(host, port) ? port : -1);
  const int bind_errno = errno;
  m.listen_fd = m.router.takeListeningSocket();
  if (bound <= 0 || m.listen_fd < 0) {
    *error = "cannot listen on " + host + ":" + std::to_string(port) +
             (bind_errno ? std::string(": ") + std::strerror(bind_errno) : std::string());
    return false;
  }
  m.port = bound;
  ::listen(m.listen_fd, kListenBacklog);  // a larger backlog on the listening socket
  ::fcntl(m.listen_fd, F_SETFL, ::fcntl(m.listen_fd, F_GETFL) | O_NONBLOCK);
  ::fcntl(m.listen_fd, F_SETFD, FD_CLOEXEC);
  m.wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (m.wake_fd < 0) {
    *error = std::string("eventfd: ") + std::strerror(errno);
    return false;
  }
  return true;
}

int GuardedServer::port() const {
  return impl_->port;
}

void GuardedServer::start() {
  Impl* m = impl_.get();
  if (m->listen_fd < 0 || m->thread.joinable()) return;
  m->thread = std::thread([m] { m->loop(); });
}

void GuardedServer::stop() {
  Impl& m = *impl_;
  if (m.stopped) return;
  m.stopped = true;
  m.stopping = true;
  if (m.wake_fd >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(m.wake_fd, &one, sizeof one);
  }
  if (m.thread.joinable()) m.thread.join();
}

ServerStats GuardedServer::stats() const {
  std::lock_guard<std::mutex> lock(impl_->stats_mutex);
  return impl_->stats;
}

}  // namespace gpufl::http
