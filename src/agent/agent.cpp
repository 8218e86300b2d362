#include "agent/agent.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "agent/agent_log.hpp"
#include "agent/agent_metrics.hpp"
#include "agent/checkpoint.hpp"
#include "agent/durable_file.hpp"
#include "agent/follower.hpp"
#include "agent/gzip.hpp"
#include "agent/line_check.hpp"
#include "agent/otlp_export.hpp"
#include "agent/sender.hpp"
#include "agent/spool.hpp"
#include "agent/token_policy.hpp"
#include "agent/watch_scan.hpp"
#include "http/bearer.hpp"
#include "http/guarded_server.hpp"

namespace gpufl::agent {

bool parseListen(const std::string& listen, std::string* host, int* port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  std::string h = listen.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  std::string p = listen.substr(colon + 1);
  if (h.empty() || p.empty() || p.size() > 5) return false;
  for (char c : p)
    if (c < '0' || c > '9') return false;
  int n = std::stoi(p);
  if (n > 65535) return false;
  *host = h;
  *port = n;
  return true;
}

bool isLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

std::string validateOptions(const AgentOptions& opts) {
  std::string origin, path;
  if (opts.to.empty() && opts.otlp.empty())
    return "give --to URL (NDJSON) or --otlp URL (OpenTelemetry), or both";
  if (!opts.to.empty() && !splitUrl(opts.to, &origin, &path))
    return "--to '" + opts.to + "' is not an http:// or https:// URL";
  if (!opts.otlp.empty() && !splitUrl(opts.otlp, &origin, &path))
    return "--otlp '" + opts.otlp + "' is not an http:// or https:// URL";
  if (std::string why = checkTokenTransport(opts); !why.empty()) return why;
  if (opts.inputs.empty()) return "no PREFIX_OR_DIR to follow";
  if (opts.state_dir.empty()) return "--state-dir is empty";
  if (!opts.listen.empty()) {
    std::string host;
    int port = 0;
    if (!parseListen(opts.listen, &host, &port))
      return "--listen '" + opts.listen + "' is not HOST:PORT";
    if (!isLoopbackHost(host) && opts.token.empty())
      return "--listen " + opts.listen +
             " is not a loopback address: give a token (GPUFL_AGENT_TOKEN or --token-file), which "
             "/metrics "
             "and /healthz will then require";
  }
  return {};
}

namespace {

int64_t nowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// Wakes the reader early when a watched directory changes; polling alone still finds everything.
class DirWatch {
 public:
  DirWatch() : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ < 0) logInfo("inotify unavailable; polling only");
  }
  ~DirWatch() {
    if (fd_ >= 0) ::close(fd_);
  }
  void watch(const std::vector<std::string>& dirs) {
    if (fd_ < 0) return;
    for (const std::string& d : dirs) {
      if (watched_.count(d)) continue;
      if (inotify_add_watch(fd_, d.c_str(),
                            IN_CREATE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
                                IN_CLOSE_WRITE | IN_DONT_FOLLOW | IN_ONLYDIR) >= 0)
        watched_.insert(d);
    }
  }
  void wait(int timeout_ms) {
    if (fd_ < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      return;
    }
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) > 0) {
      char buf[16384];
      while (::read(fd_, buf, sizeof buf) > 0) {
      }
    }
  }

 private:
  int fd_;
  std::set<std::string> watched_;
};

// Sessions whose session_end went through, per prefix: shipped once every channel of the prefix
// has.
class ShipTracker {
 public:
  void setChannels(const std::string& prefix, size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    channels_[prefix] = n;
  }
  // True once, when the session becomes shipped.
  bool acked(const std::string& prefix, const std::string& channel, const std::string& sid) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& chans = ends_[prefix + " " + sid];
    chans.insert(channel);
    size_t need = channels_.count(prefix) ? channels_[prefix] : 3;
    if (chans.size() < need) return false;
    ends_.erase(prefix + " " + sid);
    return true;
  }

 private:
  std::mutex mu_;
  std::map<std::string, size_t> channels_;
  std::map<std::string, std::set<std::string>> ends_;
};

}  // namespace

int runAgent(const AgentOptions& opts, const std::atomic<bool>& stop) {
  std::vector<WatchRoot> roots;
  for (const std::string& in : opts.inputs) {
    WatchRoot r;
    std::string error;
    if (!makeWatchRoot(in, &r, &error)) {
      logInfo("error: " + error);
      return 1;
    }
    roots.push_back(r);
  }
  std::string error;
  if (!makeDirs(opts.state_dir, &error)) {
    logInfo("error: state directory: " + error);
    return 1;
  }
  const std::string state_path = opts.state_dir + "/state.json";
  AgentState state;
  std::mutex state_mu;
  std::string text;
  struct stat st {};
  if (::lstat(state_path.c_str(), &st) == 0) {
    if (!readWholeFile(state_path, &text, &error) || !decodeState(text, &state, &error)) {
      logInfo("error: " + state_path + ": " + error + " (move it away to start over)");
      return 1;
    }
    logInfo("resuming from " + state_path + " (" + std::to_string(state.streams.size()) +
            " streams)");
  }
  Spool spool;
  if (!spool.open(opts.state_dir + "/spool", opts.spool_max_bytes, &error)) {
    logInfo("error: spool: " + error);
    return 1;
  }
  AgentMetrics metrics;
  auto save = [&]() {
    std::string data, err;
    {
      std::lock_guard<std::mutex> lock(state_mu);
      data = encodeState(state);
    }
    if (writeFileAtomic(state_path, data, &err)) return true;
    logWarning("checkpoint_write", "cannot write the checkpoint: " + err);
    return false;
  };

  ShipTracker ships;
  SenderOptions so;
  so.url = opts.to;
  so.otlp_url = opts.otlp;
  so.token = opts.token;
  so.host_name = hostName();
  so.ca_file = opts.ca_file;
  so.timeout_ms = opts.timeout_ms;
  so.backoff_min_ms = opts.backoff_min_ms;
  so.backoff_max_ms = opts.backoff_max_ms;
  std::atomic<bool> dirty{false};
  Sender sender(so, spool, metrics, [&](const BatchHeader& h) {
    for (const std::string& sid : h.session_ends) {
      if (!ships.acked(h.prefix, h.channel, sid)) continue;
      metrics.sessions_shipped++;
      logInfo("session " + sid + " of " + h.prefix +
              " shipped (session_end and every segment went through)");
      std::lock_guard<std::mutex> lock(state_mu);
      state.shipped.push_back(h.prefix + " " + sid);
      while (state.shipped.size() > AgentState::kShippedKept) state.shipped.pop_front();
      dirty = true;
    }
  });

  std::atomic<bool> halt{false};  // stop, or drained
  auto lagSeconds = [&]() {
    int64_t oldest = spool.oldestCreatedMs();
    return oldest == 0 ? 0.0 : std::max<int64_t>(0, nowUnixMs() - oldest) / 1000.0;
  };

  http::GuardedServer server;  // idle or slow clients cannot block it (guarded_server.hpp)
  httplib::Server& routes = server.routes();
  if (!opts.listen.empty()) {
    std::string host;
    int port = 0;
    parseListen(opts.listen, &host, &port);
    bool need_token = !isLoopbackHost(host);
    auto authorized = [&, need_token](const httplib::Request& req, httplib::Response& res) {
      if (!need_token || http::bearerMatches(req.get_header_value("Authorization"), opts.token))
        return true;
      res.status = 401;
      res.set_content("token required\n", "text/plain");
      return false;
    };
    routes.Get("/metrics", [&, authorized](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      res.set_content(metrics.render(spool.bytes(), spool.count(), lagSeconds()),
                      "text/plain; version=0.0.4; charset=utf-8");
    });
    routes.Get("/healthz", [&, authorized](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res)) return;
      double lag = lagSeconds();
      bool ok = lag < opts.unhealthy_lag_s;
      res.status = ok ? 200 : 503;
      res.set_content(std::string("{\"status\":\"") + (ok ? "ok" : "lagging") +
                          "\",\"lag_seconds\":" + std::to_string(lag) +
                          ",\"spool_batches\":" + std::to_string(spool.count()) +
                          ",\"sending\":" + (sender.failing() ? "\"failing\"" : "\"ok\"") + "}\n",
                      "application/json");
    });
    if (std::string why; !server.listen(host, port, &why)) {
      logInfo("error: " + why);
      return 1;
    }
    logInfo("serving /metrics and /healthz on " + host + ":" + std::to_string(server.port()));
    server.start();
  }

  std::thread sender_thread([&] { sender.run(halt); });
  FollowerConfig fc;
  fc.host_name = so.host_name;
  fc.batch_bytes = opts.batch_bytes;
  fc.gzip_level = opts.gzip_level;
  fc.ship_lines = !opts.to.empty();
  fc.track_otlp = !opts.otlp.empty();
  fc.stop = &stop;
  Follower follower(fc, state, state_mu, spool, metrics, save);
  DirWatch watch;
  std::set<std::string> refused;
  logInfo("following " + std::to_string(roots.size()) + " root(s), shipping to " +
          (opts.to.empty() ? "" : opts.to + (opts.otlp.empty() ? "" : " and ")) + opts.otlp);
  for (const std::string& note : tokenTransportNotes(opts)) logInfo(note);
  std::map<std::string, uint32_t> channel_mask;  // prefix -> channels on disk (last scan)

  // Sessions whose session_end was read in every channel of their prefix go out as OTLP requests.
  auto exportReadySessions = [&]() {
    std::vector<std::string> ready;
    {
      std::lock_guard<std::mutex> lock(state_mu);
      for (const auto& [key, mask] : state.otlp_pending) {
        uint32_t need = channel_mask[key.substr(0, key.rfind(' '))];
        if (need != 0 && (mask & need) == need) ready.push_back(key);
      }
    }
    for (const std::string& key : ready) {
      if (spool.full()) return;
      std::string prefix = key.substr(0, key.rfind(' ')), sid = key.substr(key.rfind(' ') + 1);
      uint64_t chunk = 0;
      GzipWriter gz(opts.gzip_level);
      auto res = exportSessionOtlp(prefix, sid, opts.otlp_items, &stop, [&](OtlpRequest&& r) {
        BatchHeader h;
        h.target = r.kind == OtlpRequest::Kind::Traces ? BatchHeader::Target::OtlpTraces
                                                       : BatchHeader::Target::OtlpMetrics;
        h.prefix = prefix;
        h.channel = r.kind == OtlpRequest::Kind::Traces ? "otlp-traces" : "otlp-metrics";
        h.records = r.items;
        h.text_bytes = r.body.size();
        h.created_unix_ms = nowUnixMs();
        ++chunk;
        h.first_line = h.last_line = chunk;
        std::string identity =
            so.host_name + '\n' + prefix + '\n' + sid + '\n' + h.channel + std::to_string(chunk);
        char key_hex[40];
        std::snprintf(key_hex, sizeof key_hex, "%016llx%016llx",
                      static_cast<unsigned long long>(fnv1a64(identity)),
                      static_cast<unsigned long long>(fnv1a64(identity, 0x84222325cbf29ce4ull)));
        h.key = key_hex;
        gz.append(r.body);
        std::string body = gz.finish();
        {
          std::lock_guard<std::mutex> lock(state_mu);
          h.id = state.next_batch++;
        }
        std::string err;
        if (!spool.put(h, body, &err)) {
          metrics.error("spool_write");
          logWarning("spool_write", "cannot spool an OTLP request: " + err);
          return false;
        }
        return true;
      });
      if (res.ok) {
        metrics.otlp_spans += res.spans;
        metrics.otlp_points += res.points;
      } else {
        metrics.error("otlp_export");
        logWarning("otlp_export", "session " + sid + " of " + prefix + ": " + res.error);
        if (res.error == "export abandoned") return;  // the spool failed: try again next round
      }
      {
        std::lock_guard<std::mutex> lock(state_mu);
        state.otlp_pending.erase(key);
      }
      save();
    }
  };

  while (!stop.load()) {
    ScanResult scan = scanRoots(roots, [&](const std::string& path) {
      if (refused.insert(path).second) {
        metrics.error("symlink_refused");
        logWarning("symlink_refused", path + ": a symbolic link; not followed");
      }
    });
    watch.watch(scan.dirs);
    metrics.streams = scan.streams.size();
    std::map<std::string, size_t> channels;
    for (const auto& [key, files] : scan.streams) channels[files.prefix]++;
    for (const auto& [prefix, n] : channels) ships.setChannels(prefix, n);
    channel_mask.clear();
    for (const auto& [key, files] : scan.streams)
      channel_mask[files.prefix] |= channelBit(files.channel);
    {
      std::lock_guard<std::mutex> lock(state_mu);
      if (forgetVanishedStreams(state, scan) > 0) dirty = true;
    }
    uint64_t consumed = 0;
    for (const auto& [key, files] : scan.streams) {
      if (stop.load()) break;
      consumed += follower.follow(files);
    }
    uint64_t unread = 0;
    {
      std::lock_guard<std::mutex> lock(state_mu);
      for (const auto& [key, files] : scan.streams) {
        struct stat fst {};
        auto it = state.streams.find(key);
        uint64_t off = it == state.streams.end() ? 0 : it->second.pos.offset;
        bool in_active = it == state.streams.end() ||
                         files.segments.lower_bound(it->second.next_seg) == files.segments.end();
        if (in_active && files.has_active && ::stat(files.activePath().c_str(), &fst) == 0 &&
            static_cast<uint64_t>(fst.st_size) > off)
          unread += static_cast<uint64_t>(fst.st_size) - off;
      }
    }
    metrics.unread_bytes = unread;
    if (dirty.exchange(false)) save();
    if (!opts.otlp.empty()) exportReadySessions();
    if (consumed > 0 && !spool.full()) continue;  // more may be waiting: read on before sleeping
    if (opts.exit_when_drained && consumed == 0 && spool.count() == 0 && unread == 0) break;
    watch.wait(opts.poll_ms);
  }
  halt = true;
  spool.wake();
  sender_thread.join();
  if (dirty.exchange(false)) save();
  server.stop();
  logInfo("stopped: " + std::to_string(metrics.batches_sent.load()) + " batches (" +
          std::to_string(metrics.records_sent.load()) + " records) sent, " +
          std::to_string(spool.count()) + " waiting in the spool");
  return 0;
}

}  // namespace gpufl::agent
