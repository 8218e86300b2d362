#include "runtime/session.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>

#include "core/clock.hpp"
#include "core/scope_stack.hpp"
#include "core/thread_buffer.hpp"
#include "core/thread_state.hpp"
#include "core/uuid.hpp"
#include "gpufl/version.hpp"
#include "log/log_writer.hpp"
#include "runtime/refusal_notes.hpp"

namespace gpufl::runtime {
namespace {

std::atomic<bool> session_active{false};  // one consumer of the thread buffers at a time
std::atomic<uint32_t> last_generation{0};

uint32_t nextGeneration() {
  uint32_t g = last_generation.fetch_add(1, std::memory_order_relaxed) + 1;
  if (g == 0)
    g = last_generation.fetch_add(1, std::memory_order_relaxed) + 1;  // 0 means "not recording"
  return g;
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

constexpr auto kBusyPeriod = std::chrono::milliseconds(5);  // the shortest wait between rounds

// "log 0.3, cupti_activity 10.1, system 12.2 ms"
std::string formatParts(const std::vector<std::pair<std::string, int64_t>>& parts) {
  std::string out;
  char ms[32];
  for (const auto& [name, ns] : parts) {
    std::snprintf(ms, sizeof ms, " %.1f", static_cast<double>(ns) / 1e6);
    out += (out.empty() ? "" : ", ") + name + ms;
  }
  return out + " ms";
}

}  // namespace

Session::Session(SessionConfig config) : config_(std::move(config)) {}

Session::~Session() {
  stop();
}

void Session::forgetAfterFork() noexcept {
  session_active.store(false, std::memory_order_relaxed);
}

core::SessionContext::ClockFn Session::clock() const {
  return &core::timestampCallback;
}

std::unique_ptr<Session> Session::start(SessionConfig config, std::string* error) {
  const int64_t begun = core::monotonicNs();
  std::string local_error;
  if (error == nullptr) error = &local_error;
  bool expected = false;
  if (!session_active.compare_exchange_strong(expected, true)) {
    *error = "another gpufl session is already recording in this process";
    return nullptr;
  }
  try {
    std::unique_ptr<Session> s(new Session(std::move(config)));
    const bool opened = s->open(error);
    s->init_parts_.emplace_back("log", core::monotonicNs() - begun);
    if (!opened) {
      s->stopped_ = true;  // nothing to stop: the log never opened
      session_active.store(false);
      return nullptr;
    }
    s->flight_.makeCurrent();
    s->startCollectors();
    s->startHealth();
    const int64_t collectors_started = core::monotonicNs();
    s->sink_->onSessionStart(s->start_);
    s->writePendingNotes();
    if (s->log_) s->log_->flush();
    s->last_flush_ns_ = core::monotonicNs();
    s->last_round_ns_ = s->last_flush_ns_;
    // The first round comes soon, to see how fast the program records (nextRoundWait).
    if (!s->writer_.start([raw = s.get()] { return raw->round(); }, kBusyPeriod, error)) {
      s->stop();  // still a complete log: the last round and session_end run on this thread
      return nullptr;
    }
    if (const int timeout_s = s->config_.options.hang_timeout_s; timeout_s > 0) {
      // Without a deep engine CUPTI hands over finished kernels' records every second, so launches
      // that stay unfinished while nothing arrives mean the GPU is stuck; with one they may wait in
      // CUPTI's buffers, and only a host thread's wait counts.
      const bool pending_check = s->config_.options.profiling_engine == Engine::None;
      s->flight_.startWatchdog(
          int64_t{timeout_s} * 1'000'000'000, pending_check, [] { return core::monotonicNs(); },
          [raw = s.get()] { raw->requestDrain(); });
    }
    std::string control_why;
    if (!s->control_.start(
            [raw = s.get()](std::string_view verb, std::string_view argument) {
              if (verb == "dump") raw->dump(argument.empty() ? "asked by gpufl dump" : argument);
            },
            &control_why))
      s->addNote("control", "off", control_why + ": `gpufl dump` cannot reach this process");
    s->debug("session " + s->start_.session_id + " recording to " + s->prefix() + ".*.log");
    const int64_t now = core::monotonicNs();
    s->init_parts_.emplace_back("session_start", now - collectors_started);
    s->init_ns_ = now - begun;
    return s;
  } catch (const std::exception& e) {
    *error = std::string("cannot start the session: ") + e.what();
  } catch (...) {
    *error = "cannot start the session";
  }
  core::setRecordingGeneration(0);
  session_active.store(false);
  return nullptr;
}

bool Session::open(std::string* error) {
  const InitOptions& o = config_.options;
  start_.session_id = core::uuidV4();
  start_.sid = core::sidOf(start_.session_id);
  start_.app = o.app_name;
  start_.pid = getpid();
  start_.host = hostName();
  start_.version = kVersion;
  start_.engine = o.profiling_engine;
  start_.options = optionsJson(o);
  start_.start_unix_ns = core::unixNs();
  start_.start_ns = core::monotonicNs();

  EventVisitor* out = config_.sink;
  if (out == nullptr) {
    log::LogWriterOptions lo;
    lo.prefix = o.log_path;
    lo.rotate_bytes = o.rotate_bytes;
    lo.kernel_blocks = o.kernel_blocks;
    lo.close_wait =
        std::chrono::milliseconds(0);  // stop() waits (compress_wait) before timing itself
    std::string why;
    log_ = log::LogWriter::open(lo, &why);
    if (!log_) {
      *error =
          "cannot write the log at '" + o.log_path + "': " + (why.empty() ? "open failed" : why);
      return false;
    }
    out = log_.get();
  }
  sink_ = std::make_unique<SessionSink>(*out, start_.sid);
  for (const OptionIssue& issue : config_.option_issues)
    addNote("options", "degraded", issue.message);
  // Scopes record from here on; the writer thread drains them once session_start is written.
  core::ThreadBufferRegistry::global().attach();
  generation_ = nextGeneration();
  core::setRecordingGeneration(generation_);
  return true;
}

void Session::startCollectors() {
  bool gpu_capable = false;
  for (auto& [name, factory] : config_.factories) {
    std::unique_ptr<core::Collector> c;
    try {
      c = factory(config_.options);
    } catch (const std::exception& e) {
      addNote(name, "off", std::string("collector could not be created: ") + e.what());
    } catch (...) {
      addNote(name, "off", "collector could not be created");
    }
    if (!c) continue;
    collector_names_.emplace_back(c->name());
    collectors_.push_back(std::move(c));
  }
  for (size_t i = 0; i < collectors_.size(); ++i) {
    core::Collector& c = *collectors_[i];
    const int64_t begun = core::monotonicNs();
    try {
      gpu_capable = gpu_capable || c.tracesGpu();
      const bool ok = c.start(*this);
      init_parts_.emplace_back(collector_names_[i], core::monotonicNs() - begun);
      if (ok && c.gpuProfiling()) gpu_profiling_ = true;
      if (ok && !config_.options.sampling_auto_start) c.setSampling(false);
      debug("collector " + collector_names_[i] + (ok ? " started" : " did not start"));
    } catch (const std::exception& e) {
      collectorFailed(i, e.what(), "start");
    } catch (...) {
      collectorFailed(i, "unknown exception", "start");
    }
  }
  if (!gpu_capable) addNote("cupti_activity", "off", "gpufl built without CUDA backend");
  starting_ = false;
}

void Session::collectorFailed(size_t index, const char* what, const char* step) noexcept {
  try {
    addNote(collector_names_[index], "off", std::string(step) + " failed: " + what);
  } catch (...) {
  }
}

void Session::addNote(std::string_view feature, std::string_view status, std::string_view reason) {
  try {
    Note n;
    n.sid = start_.sid;
    n.ts_ns = core::monotonicNs();
    n.feature = feature;
    n.status = status;
    n.reason = reason;
    const std::optional<std::string_view> refused = refusedEngine(n.feature, n.status);
    if (refused) n.reason = reasonWithAdvice(*refused, n.reason);
    debug("note: " + n.feature + " " + n.status + ": " + n.reason);
    std::lock_guard lock(notes_mu_);
    // What a user must hear even without debug output, once per feature: the program runs
    // unprofiled, or without the engine it asked for, and why.
    if (refused && refusals_said_.insert(n.feature).second) {
      if (n.feature == "cupti_activity") {
        // The one message of a GPU-less init (Python adds none of its own): why, and what is
        // still written where.
        std::fprintf(stderr,
                     "gpufl: GPU profiling off: %s. Scopes and system samples still go to "
                     "%s.{device,scope,system}.log; the program runs on.\n",
                     n.reason.c_str(), prefix().c_str());
      } else {
        std::fprintf(stderr, "gpufl: %.*s off: %s; the program runs on without it.\n",
                     static_cast<int>(refused->size()), refused->data(), n.reason.c_str());
      }
    }
    pending_notes_.push_back(std::move(n));
  } catch (...) {
  }
}

void Session::addBenchmark(BenchmarkResult result) {
  try {
    result.sid = start_.sid;
    if (result.ts_ns == 0) result.ts_ns = core::monotonicNs();
    std::lock_guard lock(notes_mu_);
    pending_benchmarks_.push_back(std::move(result));
  } catch (...) {
  }
}

void Session::addDevice(const DeviceInfo& device) {
  if (starting_) start_.devices.push_back(device);
}

bool Session::dump(std::string_view reason) {
  core::IncidentTrigger t;
  t.kind = core::IncidentKind::Dump;
  t.tid = static_cast<uint32_t>(core::currentTid());
  t.scope_path = core::currentScopePath();
  t.ts_ns = core::monotonicNs();
  const size_t n = std::min(reason.size(), sizeof t.reason - 1);
  std::copy_n(reason.data(), n, t.reason);
  t.reason[n] = '\0';
  if (!flight_.trigger(t)) return false;
  writer_.wake();
  return true;
}

void Session::setSampling(bool on) {
  for (auto& c : collectors_) {
    try {
      c->setSampling(on);
    } catch (...) {
    }
  }
}

// [writer thread]
void Session::writePendingNotes() {
  std::vector<Note> notes;
  std::vector<BenchmarkResult> benchmarks;
  {
    std::lock_guard lock(notes_mu_);
    notes.swap(pending_notes_);
    benchmarks.swap(pending_benchmarks_);
  }
  for (const Note& n : notes) sink_->onNote(n);
  for (const BenchmarkResult& b : benchmarks) sink_->onBenchmark(b);
}

// [writer thread]
void Session::writeIncidents(int64_t captured_by_ns) {
  std::vector<Incident> incidents = flight_.takeIncidents(start_.sid, captured_by_ns);
  if (incidents.empty()) return;
  for (const Incident& i : incidents) {
    sink_->onIncident(i);
    debug("incident: " + i.kind + ": " + i.reason);
  }
  // What happened must reach the disk now: the program may be about to die.
  if (log_) {
    log_->flush();
    last_flush_ns_ = core::monotonicNs();
  }
}

// [writer thread]
std::chrono::milliseconds Session::round() noexcept {
  double max_fill = 0;
  try {
    writePendingNotes();
    // Before any collector's drain, those that waited a round already: a drain stuck on the GPU
    // must not keep an incident from the disk (the others wait for this round's drains, so that
    // the last kernels before them have arrived).
    writeIncidents(core::monotonicNs() - 1'000'000'000);
    const core::DrainStats stats = core::ThreadBufferRegistry::global().drainAll(
        [&](const core::Record& r, const core::ThreadInfo& t) {
          if (sink_->onScopeRecord(r, t)) return;
          for (auto& c : collectors_) c->onRecord(r, t);
        });
    for (int s = 0; s < core::kSourceCount; ++s) dropped_[s] += stats.dropped.by_source[s];
    max_fill = stats.max_fill;
    for (size_t i = 0; i < collectors_.size(); ++i) {
      try {
        collectors_[i]->drain(*sink_);
      } catch (const std::exception& e) {
        collectorFailed(i, e.what(), "drain");
      } catch (...) {
        collectorFailed(i, "unknown exception", "drain");
      }
    }
    writePendingNotes();
    writeIncidents();  // after the drains: the enricher sees the last kernels that arrived
    const int64_t now = core::monotonicNs();
    if (health_ && health_->due(now)) writeHealth(now, false);
    if (log_ && now - last_flush_ns_ >= config_.flush_period.count() * 1'000'000) {
      log_->flush();
      last_flush_ns_ = now;
    }
    checkLogWrites();
  } catch (...) {
    // A round must never take the writer thread (and the program) down; what it lost is lost.
  }
  const int64_t now = core::monotonicNs();
  const std::chrono::nanoseconds since_last(now - last_round_ns_);
  last_round_ns_ = now;
  return nextRoundWait(since_last, max_fill, kBusyPeriod, config_.period);
}

// [writer thread]
void Session::checkLogWrites() {
  if (!log_ || write_failure_said_) return;
  const log::LogWriterStats st = log_->stats();
  if (st.records_dropped == 0) return;
  write_failure_said_ = true;
  const std::string what =
      st.last_error +
      "; records that cannot be written are dropped and counted (session_end dropped.write)";
  std::fprintf(stderr, "gpufl: %s\n", what.c_str());
  addNote("log", "degraded", what);
}

void Session::stop() {
  if (stopped_) return;
  stopped_ = true;
  const int64_t stop_begun = core::monotonicNs();
  int64_t part_begun = stop_begun;
  auto part_done = [&](std::string name) {
    const int64_t now = core::monotonicNs();
    shutdown_parts_.emplace_back(std::move(name), now - part_begun);
    part_begun = now;
  };
  core::setRecordingGeneration(0);
  flight_.stopWatchdog();
  control_.stop();
  writer_.stop();
  part_done("writer thread");
  if (!sink_) {  // start() failed half-way: nothing was written
    core::ThreadBufferRegistry::global().detach();
    session_active.store(false);
    return;
  }
  for (size_t i = 0; i < collectors_.size(); ++i) {
    try {
      collectors_[i]->stop();
    } catch (const std::exception& e) {
      collectorFailed(i, e.what(), "stop");
    } catch (...) {
      collectorFailed(i, "unknown exception", "stop");
    }
    part_done(collector_names_[i]);
  }
  const uint64_t cpu0 = core::threadCpuNs();
  const int64_t t0 = core::monotonicNs();
  round();  // the last round, on this thread: collectors are stopped, their last data is drainable
  core::ThreadBufferRegistry::global().detach();
  part_done("last round");
  if (log_) {
    log_->flush();  // so that session_end counts every record that could not be written before it
    checkLogWrites();
  }
  part_done("flush");

  end_.sid = start_.sid;
  end_.end_ns = core::monotonicNs();
  end_.kernels = sink_->kernels();
  end_.memcpys = sink_->memcpys();
  end_.scopes = sink_->scopes();
  fillDropped(end_.dropped);
  end_.overhead_ns["writer"] = writer_.busyNs() + static_cast<uint64_t>(end_.end_ns - t0);
  end_.cpu_time_ns = writer_.cpuNs() + (core::threadCpuNs() - cpu0);
  for (size_t i = 0; i < collectors_.size(); ++i) {
    try {
      collectors_[i]->finish(end_);
    } catch (...) {
      collectorFailed(i, "exception", "finish");
    }
  }
  // Compression is bounded here, before the time is taken; close() below does not wait for it.
  if (log_) log_->finishCompression(config_.compress_wait);
  part_done("finish");  // the collectors' counts and the bounded compression wait
  // What gpufl cost the program's own thread: init (under gpufl trace, inside the program's cuInit:
  // NVML, CUPTI, the log files) and this shutdown up to here (the last CUPTI flush and round, the
  // flush and the compression wait), then each part; what follows writes a few lines.
  char held[128];
  std::snprintf(held, sizeof held, "init %.1f ms, shutdown %.1f ms on the program's thread",
                static_cast<double>(init_ns_) / 1e6,
                static_cast<double>(core::monotonicNs() - stop_begun) / 1e6);
  addNote("gpufl_time", "on",
          std::string(held) + "; init: " + formatParts(init_parts_) +
              "; shutdown: " + formatParts(shutdown_parts_));
  writePendingNotes();                               // from stop()/finish()
  writeHealth(core::monotonicNs(), /*final=*/true);  // the last record before session_end
  try {
    if (log_) end_.bytes_written = log_->stats().bytes_written;
    sink_->onSessionEnd(end_);
    if (log_) {
      log_->close();
      // session_end counted the losses before it; if it or the notes before it were lost too, the
      // log cannot say so.
      const log::LogWriterStats st = log_->stats();
      if (st.records_dropped > end_.dropped["write"]) {
        std::fprintf(stderr,
                     "gpufl: %llu records could not be written to the log at '%s' (%s); its "
                     "session_end is missing or undercounts them\n",
                     static_cast<unsigned long long>(st.records_dropped), prefix().c_str(),
                     st.last_error.c_str());
      }
    }
  } catch (...) {
  }
  while (!collectors_.empty()) collectors_.pop_back();  // reverse order of creation
  debug("session " + start_.sid + " ended: " + std::to_string(end_.scopes) + " scopes, " +
        std::to_string(end_.kernels) + " kernels");
  flight_.clearCurrent();
  session_active.store(false);
}

void Session::debug(const std::string& message) const {
  if (config_.options.enable_debug_output) std::fprintf(stderr, "gpufl: %s\n", message.c_str());
}

}  // namespace gpufl::runtime
