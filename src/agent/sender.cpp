#include "agent/sender.hpp"

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <random>
#include <thread>

#include "agent/agent_log.hpp"

namespace gpufl::agent {

bool splitUrl(const std::string& url, std::string* origin, std::string* path) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return false;
  std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return false;
  size_t path_at = url.find('/', scheme_end + 3);
  *origin = url.substr(0, path_at);
  *path = path_at == std::string::npos ? "/" : url.substr(path_at);
  return origin->size() > scheme_end + 3;
}

long parseRetryAfter(const std::string& value, long now_unix) {
  if (value.empty()) return -1;
  bool digits = true;
  for (char c : value) digits = digits && c >= '0' && c <= '9';
  if (digits) return value.size() > 9 ? -1 : std::stol(value);
  struct tm tm {};
  // IMF-fixdate, the form RFC 9110 says senders use: "Sun, 06 Nov 1994 08:49:37 GMT".
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr) return -1;
  long at = static_cast<long>(timegm(&tm));
  return at > now_unix ? at - now_unix : 0;
}

Sender::Sender(SenderOptions opts, Spool& spool, AgentMetrics& metrics, Acked on_acked)
    : opts_(std::move(opts)), spool_(spool), metrics_(metrics), on_acked_(std::move(on_acked)) {}

namespace {

// Sleeps `ms`, waking early when `stop` is set.
void sleepUnlessStopped(long ms, const std::atomic<bool>& stop) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!stop.load() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long>(ms, 50)));
}

int64_t nowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

namespace {

std::unique_ptr<httplib::Client> makeClient(const std::string& origin, const SenderOptions& opts) {
  auto client = std::make_unique<httplib::Client>(origin);
  client->set_keep_alive(true);
  client->set_connection_timeout(std::chrono::milliseconds(opts.timeout_ms));
  client->set_read_timeout(std::chrono::milliseconds(opts.timeout_ms));
  client->set_write_timeout(std::chrono::milliseconds(opts.timeout_ms));
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  if (origin.rfind("https://", 0) == 0) {
    client->enable_server_certificate_verification(true);
    std::string ca = opts.ca_file.empty() ? "/etc/ssl/certs/ca-certificates.crt" : opts.ca_file;
    client->set_ca_cert_path(ca.c_str());
  }
#endif
  return client;
}

}  // namespace

void Sender::run(const std::atomic<bool>& stop) {
  std::string origin, path, otlp_origin, otlp_path;
  std::unique_ptr<httplib::Client> client, otlp_client;
  if (!opts_.url.empty() && splitUrl(opts_.url, &origin, &path)) client = makeClient(origin, opts_);
  if (!opts_.otlp_url.empty() && splitUrl(opts_.otlp_url, &otlp_origin, &otlp_path)) {
    otlp_client = makeClient(otlp_origin, opts_);
    while (!otlp_path.empty() && otlp_path.back() == '/') otlp_path.pop_back();
  }
  std::mt19937 rng(std::random_device{}());
  long backoff_ms = opts_.backoff_min_ms;
  // A POST in progress when `stop` is set is cut short (Client::stop shuts its socket down), so
  // that the agent ends within a second of SIGTERM whatever the receiver does; the batch stays in
  // the spool. A connect in progress still runs to its timeout.
  std::atomic<bool> finished{false};
  std::thread cutter([&] {
    while (!finished.load()) {
      if (stop.load()) {  // again and again: a POST may begin after one stop()
        if (client) client->stop();
        if (otlp_client) otlp_client->stop();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  struct JoinAtExit {
    std::atomic<bool>& finished;
    std::thread& thread;
    ~JoinAtExit() {
      finished = true;
      thread.join();
    }
  } join_at_exit{finished, cutter};

  while (!stop.load()) {
    BatchHeader h;
    std::string body, error;
    if (!spool_.oldest(&h, &body, 200, &error)) {
      if (!error.empty()) {
        metrics_.error("spool_unreadable");
        logWarning("spool_unreadable", "a spooled batch cannot be read, put aside: " + error);
      }
      continue;
    }
    httplib::Headers headers = {
        {"Content-Encoding", "gzip"},
        {"Idempotency-Key", h.key},
        {"X-Gpufl-Host", opts_.host_name},
        {"X-Gpufl-Source", h.prefix + "." + h.channel},
        {"X-Gpufl-Lines", std::to_string(h.first_line) + "-" + std::to_string(h.last_line)},
        {"X-Gpufl-Segment", std::to_string(h.seg)},
    };
    if (!opts_.token.empty()) headers.emplace("Authorization", "Bearer " + opts_.token);
    bool otlp = h.target != BatchHeader::Target::Ndjson;
    httplib::Client* to = otlp ? otlp_client.get() : client.get();
    if (to == nullptr) {  // spooled by an earlier run configured with a destination this one lacks
      metrics_.error("no_destination");
      logWarning("no_destination",
                 "batch " + std::to_string(h.id) + " has no destination in this run; kept");
      spool_.reject(h.id);
      continue;
    }
    std::string post_path =
        !otlp ? path
              : otlp_path +
                    (h.target == BatchHeader::Target::OtlpTraces ? "/v1/traces" : "/v1/metrics");
    auto res = to->Post(post_path, headers, body,
                        otlp ? "application/x-protobuf" : "application/x-ndjson");
    long wait_ms = -1;               // < 0: success or put aside; else retry after this long
    bool told = false;               // wait_ms is the receiver's Retry-After: never shorter
    if (!res && stop.load()) break;  // cut short by the stop: sent again next run
    if (!res) {
      metrics_.error("network");
      logWarning("network", "POST " + (otlp ? opts_.otlp_url : opts_.url) +
                                " failed: " + httplib::to_string(res.error()) + "; batch " +
                                std::to_string(h.id) + " will be retried");
      wait_ms = backoff_ms;
    } else if (res->status >= 200 && res->status < 300) {
      spool_.remove(h.id);
      metrics_.batches_sent++;
      metrics_.records_sent += h.records;
      metrics_.bytes_sent += body.size();
      metrics_.last_success_unix_ms = nowUnixMs();
      on_acked_(h);
    } else if (res->status == 429) {
      metrics_.error("http_429");
      long s = parseRetryAfter(res->get_header_value("Retry-After"),
                               static_cast<long>(std::time(nullptr)));
      wait_ms = s < 0 ? backoff_ms : std::min<long>(s, opts_.retry_after_max_s) * 1000;
      told = s >= 0;
      logWarning("http_429",
                 "receiver asks to slow down (429); waiting " + std::to_string(wait_ms) + " ms");
    } else if (res->status >= 500 || res->status == 408 || res->status == 401 ||
               res->status == 403) {
      // 401/403: a wrong or missing token refuses every batch alike; keep them until it is fixed.
      std::string kind = res->status >= 500 ? "http_5xx" : "http_" + std::to_string(res->status);
      metrics_.error(kind);
      logWarning(kind, "receiver answered " + std::to_string(res->status) + " to batch " +
                           std::to_string(h.id) + "; will retry");
      wait_ms = backoff_ms;
    } else {
      metrics_.error("http_4xx_rejected");
      logWarning("http_4xx_rejected",
                 "receiver refused batch " + std::to_string(h.id) + " (" + h.prefix + "." +
                     h.channel + " lines " + std::to_string(h.first_line) + "-" +
                     std::to_string(h.last_line) + ") with " + std::to_string(res->status) +
                     "; kept under spool/rejected/");
      spool_.reject(h.id);
    }
    if (wait_ms < 0) {
      backoff_ms = opts_.backoff_min_ms;
      failing_ = false;
      continue;
    }
    failing_ = true;
    metrics_.retries++;
    // Jitter (+-20%) so that many agents behind one receiver do not retry in step.
    std::uniform_real_distribution<double> jitter(told ? 1.0 : 0.8, 1.2);
    sleepUnlessStopped(static_cast<long>(wait_ms * jitter(rng)), stop);
    backoff_ms = std::min<long>(backoff_ms * 2, opts_.backoff_max_ms);
  }
}

}  // namespace gpufl::agent
