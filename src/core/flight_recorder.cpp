#include "core/flight_recorder.hpp"

#include <pthread.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include "core/thread_state.hpp"

namespace gpufl::core {
namespace {

std::atomic<FlightRecorder*> g_current{nullptr};
thread_local void* t_wait_slot = nullptr;  // this thread's WaitSlot in the current recorder
thread_local const void* t_wait_owner = nullptr;

// Copies the C string at `src` into `dst` (size n, always terminated) without trusting the pointer:
// a kernel name the driver freed with its module reads as "?" instead of faulting. process_vm_readv
// reads through the kernel, which answers EFAULT for unmapped memory; safe in a signal handler.
void safeCopy(char* dst, size_t n, const char* src) {
  dst[0] = '\0';
  if (src == nullptr || n == 0) return;
  iovec local{dst, n - 1};
  iovec remote{const_cast<char*>(src), n - 1};
  ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (got <= 0) {
    // The name may end near the end of a mapping: try a short read before giving up.
    remote.iov_len = local.iov_len = std::min<size_t>(n - 1, 32);
    got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  }
  if (got <= 0) {
    std::memcpy(dst, "?", 2);
    return;
  }
  dst[got] = '\0';
  dst[strnlen(dst, static_cast<size_t>(got))] = '\0';
}

void copyText(char* dst, size_t n, const char* src) {
  size_t i = 0;
  for (; src != nullptr && src[i] != '\0' && i + 1 < n; ++i) dst[i] = src[i];
  dst[i] = '\0';
}

}  // namespace

const char* incidentKindName(IncidentKind kind) {
  switch (kind) {
    case IncidentKind::CudaError:
      return "cuda_error";
    case IncidentKind::OutOfMemory:
      return "out_of_memory";
    case IncidentKind::Hang:
      return "hang";
    case IncidentKind::Signal:
      return "signal";
    case IncidentKind::Terminate:
      return "terminate";
    case IncidentKind::Xid:
      return "xid";
    case IncidentKind::Dump:
      break;
  }
  return "dump";
}

int64_t coarseMonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

FlightRecorder::FlightRecorder() = default;

FlightRecorder::~FlightRecorder() {
  stopWatchdog();
  clearCurrent();
}

FlightRecorder* FlightRecorder::current() {
  return g_current.load(std::memory_order_acquire);
}

void FlightRecorder::makeCurrent() {
  g_current.store(this, std::memory_order_release);
}

void FlightRecorder::clearCurrent() {
  FlightRecorder* self = this;
  g_current.compare_exchange_strong(self, nullptr);
}

FlightRecorder::WaitSlot* FlightRecorder::ownWaitSlot() {
  if (t_wait_owner == this) return static_cast<WaitSlot*>(t_wait_slot);
  const size_t i = waiters_used_.fetch_add(1, std::memory_order_relaxed);
  WaitSlot* slot = i < kMaxWaiters ? &waiters_[i] : nullptr;
  if (slot != nullptr) slot->tid.store(static_cast<uint32_t>(currentTid()));
  t_wait_owner = this;
  t_wait_slot = slot;
  return slot;
}

void FlightRecorder::waitBegins(const char* api, uint64_t stream, uint32_t scope_path,
                                int64_t now_ns) {
  WaitSlot* slot = ownWaitSlot();
  if (slot == nullptr) return;
  slot->since_ns.store(now_ns, std::memory_order_relaxed);
  slot->stream.store(stream, std::memory_order_relaxed);
  slot->scope_path.store(scope_path, std::memory_order_relaxed);
  slot->api.store(api, std::memory_order_release);
}

void FlightRecorder::waitEnds() {
  if (t_wait_owner != this || t_wait_slot == nullptr) return;
  static_cast<WaitSlot*>(t_wait_slot)->api.store(nullptr, std::memory_order_release);
}

void FlightRecorder::raiseWatermark(uint64_t key, uint32_t corr) {
  for (Watermark& w : watermarks_) {
    uint64_t k = w.key.load(std::memory_order_acquire);
    if (k == 0 && w.key.compare_exchange_strong(k, key)) k = key;
    if (k != key) continue;
    uint32_t old = w.corr.load(std::memory_order_relaxed);
    while (old < corr && !w.corr.compare_exchange_weak(old, corr)) {
    }
    return;
  }
  // More streams than remembered: the oldest launches of the others stay candidates (safe side).
}

uint32_t FlightRecorder::watermark(uint64_t key) const {
  for (const Watermark& w : watermarks_)
    if (w.key.load(std::memory_order_acquire) == key) return w.corr.load(std::memory_order_relaxed);
  return 0;
}

void FlightRecorder::synchronized(uint64_t context, uint64_t stream, bool whole_context,
                                  uint32_t corr) {
  // Keys: a context handle with its low bit set (handles are aligned), a stream handle as is. The
  // legacy default stream (0) synchronizes with every blocking stream, so it counts as the context.
  if (whole_context || stream == 0)
    raiseWatermark(context | 1, corr);
  else
    raiseWatermark(stream, corr);
}

bool FlightRecorder::provenFinished(const LaunchSlot& launch) const {
  const uint32_t context_mark = launch.context != 0 ? watermark(launch.context | 1) : 0;
  const uint32_t stream_mark = launch.stream != 0 ? watermark(launch.stream) : 0;
  return launch.correlation_id <= std::max(context_mark, stream_mark);
}

int64_t FlightRecorder::oldestUnfinishedLaunchNs() const {
  LaunchSlot first[kOldestListed];
  const size_t pending = launches_.pendingLaunches(first, kOldestListed, /*oldest=*/true);
  for (size_t i = 0; i < std::min(pending, kOldestListed); ++i)
    if (!provenFinished(first[i])) return first[i].launch_ns;
  return INT64_MAX;
}

bool FlightRecorder::isRepeat(const IncidentTrigger& t) {
  if (t.kind == IncidentKind::CudaError || t.kind == IncidentKind::Xid) {
    // Once per context and error code; an Xid once per GPU and Xid (the driver repeats them).
    const uint64_t where =
        t.kind == IncidentKind::Xid ? (uint64_t{t.gpu} << 1) | 0x8000'0000'0000ull : t.context;
    const uint64_t key = (where ^ static_cast<uint64_t>(t.error_code) * 0x9e3779b97f4a7c15ull) | 1;
    for (auto& seen : error_seen_) {
      uint64_t k = seen.load(std::memory_order_acquire);
      if (k == key) return true;
      if (k == 0 && seen.compare_exchange_strong(k, key)) return false;
      if (k == key) return true;
    }
    return false;
  }
  if (t.kind == IncidentKind::OutOfMemory) {
    int64_t last = last_oom_ns_.load(std::memory_order_relaxed);
    if (last != INT64_MIN && t.ts_ns - last < kOomRepeatNs) return true;
    return !last_oom_ns_.compare_exchange_strong(last, t.ts_ns);
  }
  return false;
}

bool FlightRecorder::trigger(const IncidentTrigger& t) {
  if (isRepeat(t) || incidents_.fetch_add(1, std::memory_order_relaxed) >= kMaxIncidents) {
    suppressed_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  Captured* c = nullptr;
  for (Captured& slot : captured_) {
    int expected = 0;
    if (slot.state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
      c = &slot;
      break;
    }
  }
  if (c == nullptr) {  // the writer has not taken the earlier ones yet
    suppressed_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  c->trigger = t;
  // The latest launches, and the oldest (a hung stream's running kernel may have many queued
  // behind it): both ends of the in-flight set, in launch order.
  LaunchSlot latest[kMaxListed - kOldestListed], first[kOldestListed];
  c->pending = launches_.pendingLaunches(latest, std::size(latest));
  const size_t n_latest = std::min(c->pending, std::size(latest));
  size_t n_first = 0;
  if (c->pending > n_latest) {
    n_first = std::min(launches_.pendingLaunches(first, std::size(first), /*oldest=*/true),
                       std::size(first));
    while (n_first > 0 && n_latest > 0 &&
           first[n_first - 1].correlation_id >= latest[0].correlation_id)
      --n_first;  // already among the latest (the set changed between the two scans)
  }
  c->listed = 0;
  const auto keep = [c](const LaunchSlot* part, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      c->launches[c->listed] = part[i];
      safeCopy(c->names[c->listed], sizeof c->names[c->listed], part[i].name);
      c->launches[c->listed++].name = nullptr;
    }
  };
  keep(first, n_first);
  keep(latest, n_latest);
  c->waiters = 0;
  const size_t used = std::min(waiters_used_.load(std::memory_order_relaxed), kMaxWaiters);
  for (size_t i = 0; i < used && c->waiters < std::size(c->waiting); ++i) {
    const char* api = waiters_[i].api.load(std::memory_order_acquire);
    if (api == nullptr) continue;
    c->waiting[c->waiters++] = {waiters_[i].tid.load(std::memory_order_relaxed), api,
                                waiters_[i].since_ns.load(std::memory_order_relaxed),
                                waiters_[i].stream.load(std::memory_order_relaxed),
                                waiters_[i].scope_path.load(std::memory_order_relaxed)};
  }
  c->state.store(2, std::memory_order_release);
  return true;
}

std::vector<Incident> FlightRecorder::takeIncidents(const std::string& sid,
                                                    int64_t captured_by_ns) {
  std::vector<Incident> out;
  for (Captured& c : captured_) {
    if (c.state.load(std::memory_order_acquire) != 2) continue;
    if (c.trigger.ts_ns > captured_by_ns) continue;
    out.push_back(compose(c, sid));
    c.state.store(0, std::memory_order_release);
  }
  std::sort(out.begin(), out.end(),
            [](const Incident& a, const Incident& b) { return a.ts_ns < b.ts_ns; });
  if (enrich_)
    for (Incident& i : out) enrich_(i);
  return out;
}

Incident FlightRecorder::compose(const Captured& c, const std::string& sid) const {
  const IncidentTrigger& t = c.trigger;
  Incident i;
  i.sid = sid;
  i.ts_ns = t.ts_ns;
  i.kind = incidentKindName(t.kind);
  i.reason = t.reason;
  if (t.api != nullptr) i.api = t.api;
  if (t.has_error_code) i.error_code = t.error_code;
  if (t.error_name != nullptr) i.error_name = t.error_name;
  i.tid = t.tid;
  i.scope_path = t.scope_path;
  if (t.requested_bytes != 0) i.requested_bytes = t.requested_bytes;
  if (t.total_bytes != 0) {
    i.free_bytes = t.free_bytes;
    i.total_bytes = t.total_bytes;
  }
  i.in_flight_count = c.pending;
  for (size_t k = 0; k < c.listed; ++k) {
    const LaunchSlot& l = c.launches[k];
    // Finished, as a synchronize proved, but its record not yet handed over by CUPTI: not in
    // flight.
    if (provenFinished(l)) {
      --i.in_flight_count;
      continue;
    }
    InFlightLaunch f;
    f.correlation_id = l.correlation_id;
    f.kind = launchKindName(l.kind);
    f.name = c.names[k];
    f.stream_handle = l.stream;
    f.context = l.context;
    f.tid = l.tid;
    f.scope_path = l.info.scope_path;
    f.stack_id = l.info.stack_id;
    f.launch_ns = l.launch_ns;
    i.in_flight.push_back(std::move(f));
  }
  for (size_t k = 0; k < c.waiters; ++k) {
    BlockedThread b;
    b.tid = c.waiting[k].tid;
    b.api = c.waiting[k].api;
    b.since_ns = c.waiting[k].since_ns;
    b.stream_handle = c.waiting[k].stream;
    b.scope_path = c.waiting[k].scope_path;
    i.blocked.push_back(std::move(b));
  }
  attribute(c, i);
  return i;
}

void FlightRecorder::attribute(const Captured& c, Incident& out) const {
  const IncidentTrigger& t = c.trigger;
  if (t.kind == IncidentKind::CudaError) {
    // The fault is in a launch on the erroring context that no successful synchronize proved
    // finished. Kernels after a faulting one on the same stream never ran, but gpufl cannot tell
    // which one faulted: every candidate is named, in launch order.
    size_t candidates = 0;
    const uint32_t context_mark = t.context != 0 ? watermark(t.context | 1) : 0;
    for (InFlightLaunch& f : out.in_flight) {
      if (t.context != 0 && f.context != t.context) continue;
      const uint32_t mark =
          std::max(context_mark, f.stream_handle != 0 ? watermark(f.stream_handle) : 0u);
      if (f.correlation_id <= mark) continue;
      f.suspect = true;
      ++candidates;
    }
    if (candidates == 1) {
      out.attribution =
          "exact: the only launch on this context not proven finished by a synchronize";
    } else if (candidates > 1) {
      out.attribution = "one of " + std::to_string(candidates) +
                        " launches on this context made since the last successful synchronize "
                        "(the first of each stream ran first; later ones on its stream never ran)";
      if (c.pending > c.listed) out.attribution += "; only the latest are listed";
    } else {
      out.attribution =
          "none in flight: the fault came from work whose record had already arrived, or from "
          "a call gpufl does not trace";
    }
  } else if (t.kind == IncidentKind::Xid) {
    // The driver names the GPU, not the work: every launch in flight there is a suspect.
    for (InFlightLaunch& f : out.in_flight) f.suspect = f.kind == "kernel" || f.kind == "graph";
    out.attribution = out.in_flight.empty()
                          ? "no launch of this process in flight: the error may come from "
                            "another process on the GPU, or from the GPU itself"
                          : "the kernels in flight when the driver reported it (the driver does "
                            "not say which one; another process on the GPU may be the cause)";
  } else if (t.kind == IncidentKind::Hang) {
    // Each stream runs its work in order: its oldest unfinished launch is the one running or
    // waiting, and the others queue behind it.
    std::map<uint64_t, InFlightLaunch*> oldest;
    for (InFlightLaunch& f : out.in_flight) {
      auto [it, fresh] = oldest.try_emplace(f.stream_handle ^ (f.context << 1), &f);
      if (!fresh && f.correlation_id < it->second->correlation_id) it->second = &f;
    }
    for (auto& [key, f] : oldest) f->suspect = true;
    out.attribution = oldest.empty()
                          ? "no launch in flight: the wait is on work gpufl did not see launched"
                          : "the oldest unfinished launch of each stream (a stream runs in order: "
                            "it is running or waiting, the others queue behind it)";
  }
}

// ---- watchdog
// ------------------------------------------------------------------------------------

void FlightRecorder::startWatchdog(int64_t timeout_ns, bool pending_check,
                                   std::function<int64_t()> now_ns, std::function<void()> wake) {
  if (timeout_ns <= 0 || watchdog_.joinable()) return;
  hang_timeout_ns_ = timeout_ns;
  pending_check_ = pending_check;
  now_ns_ = std::move(now_ns);
  wake_ = std::move(wake);
  watch_stop_ = false;
  last_arrival_ns_.store(now_ns_(), std::memory_order_relaxed);
  watchdog_ = std::thread([this] { watchLoop(); });
}

void FlightRecorder::stopWatchdog() {
  if (!watchdog_.joinable()) return;
  {
    std::lock_guard lock(watch_mu_);
    watch_stop_ = true;
  }
  watch_cv_.notify_all();
  watchdog_.join();
}

void FlightRecorder::watchLoop() {
  pthread_setname_np(pthread_self(), "gpufl-watchdog");  // its CPU time in health records
  const auto period = std::chrono::nanoseconds(
      std::clamp<int64_t>(hang_timeout_ns_ / 4, 50'000'000, 1'000'000'000));
  std::unique_lock lock(watch_mu_);
  while (!watch_cv_.wait_for(lock, period, [this] { return watch_stop_; })) {
    lock.unlock();
    if (checkHang(now_ns_()) && wake_) wake_();
    lock.lock();
  }
}

bool FlightRecorder::checkHang(int64_t now_ns) {
  // The state is what is stuck: the threads waiting longer than the timeout and the launches that
  // old still unfinished. One incident per state: the same wait on the same kernels is said once,
  // however long it lasts and whichever condition saw it first.
  const int64_t limit = now_ns - hang_timeout_ns_;
  uint64_t key = 0;
  const char* waiting_api = nullptr;
  uint32_t waiting_tid = 0;
  const size_t used = std::min(waiters_used_.load(std::memory_order_relaxed), kMaxWaiters);
  for (size_t i = 0; i < used; ++i) {
    const char* api = waiters_[i].api.load(std::memory_order_acquire);
    const int64_t since = waiters_[i].since_ns.load(std::memory_order_relaxed);
    if (api == nullptr || since > limit) continue;
    key = key * 31 + waiters_[i].tid.load(std::memory_order_relaxed) * 1000003ull +
          static_cast<uint64_t>(since);
    if (waiting_api == nullptr) {
      waiting_api = api;
      waiting_tid = waiters_[i].tid.load(std::memory_order_relaxed);
    }
  }
  const bool silent = pending_check_ && last_arrival_ns_.load(std::memory_order_relaxed) <= limit;
  bool stalled = false;
  if (waiting_api != nullptr || silent) {
    // A scan of the table, at most once a period, only while something already looks stuck.
    LaunchSlot first[kOldestListed];
    const size_t pending = launches_.pendingLaunches(first, kOldestListed, /*oldest=*/true);
    for (size_t i = 0; i < std::min(pending, kOldestListed); ++i) {
      if (first[i].launch_ns > limit || provenFinished(first[i])) continue;
      stalled = true;
      key = key * 31 + first[i].correlation_id;
    }
  }
  if (waiting_api == nullptr && !(silent && stalled)) return false;
  if (key == last_hang_key_) return false;
  last_hang_key_ = key;
  IncidentTrigger t;
  t.kind = IncidentKind::Hang;
  t.ts_ns = now_ns;
  t.api = waiting_api;
  t.tid = waiting_tid;
  const double seconds = static_cast<double>(hang_timeout_ns_) / 1e9;
  char reason[sizeof t.reason];
  if (waiting_api != nullptr)
    std::snprintf(reason, sizeof reason, "a host thread has waited in %s for more than %.0f s%s",
                  waiting_api, seconds, stalled ? ", and launches that old are unfinished" : "");
  else
    std::snprintf(reason, sizeof reason,
                  "launches older than %.0f s are unfinished and no GPU record arrived for as "
                  "long",
                  seconds);
  copyText(t.reason, sizeof t.reason, reason);
  return trigger(t);
}

}  // namespace gpufl::core
