// One recording session: owns the options, the LogWriter, the collectors and the writer thread.
//
//   start: open the log -> start recording scopes -> make and start collectors
//          -> session_start (with their devices) and notes
//          -> writer thread (a round every ~50 ms: thread buffers, collectors; flush every ~1 s)
//   stop:  stop recording scopes -> join the writer thread -> stop collectors
//          -> last round on this thread -> flush, and at most compress_wait for compressions
//          -> gpufl_time note -> session_end (counts, drops, overhead) -> close the log
// Only one session records at a time in a process (the per-thread buffers have one consumer).
// gpufl::init holds the process's session; tests may run their own, one after another.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/collector.hpp"
#include "core/events.hpp"
#include "core/flight_recorder.hpp"
#include "runtime/control_channel.hpp"
#include "runtime/health_reporter.hpp"
#include "runtime/options_env.hpp"
#include "runtime/session_sink.hpp"
#include "runtime/writer_thread.hpp"

namespace gpufl::log {
class LogWriter;
}

namespace gpufl::runtime {

struct SessionConfig {
  InitOptions options;  // as used: env overrides applied, defaults resolved
  std::vector<OptionIssue>
      option_issues;  // written as notes (feature "options", status "degraded")
  std::vector<std::pair<std::string, core::CollectorFactory>>
      factories;                         // usually collectorFactories()
  EventVisitor* sink = nullptr;          // tests: events go here and no files are opened
  std::chrono::milliseconds period{50};  // writer round period
  std::chrono::milliseconds flush_period{1000};
  // At stop, the most time spent waiting for segment compressions; segments not done stay plain and
  // are compressed by the next writer on the prefix.
  std::chrono::milliseconds compress_wait{1000};
};

class Session final : public core::SessionContext {
 public:
  // Never throws. nullptr with *error (one line naming the cause, e.g. the log path) when it cannot
  // record.
  static std::unique_ptr<Session> start(SessionConfig config, std::string* error);
  ~Session() override;

  // Flushes everything and closes the log. Idempotent.
  void stop();

  // In a fork() child: the inherited session has no writer thread there and its files belong to the
  // parent. Call after core::forkChild(); the inherited Session object must then be leaked, never
  // stopped or destroyed.
  static void forgetAfterFork() noexcept;

  bool gpuProfiling() const { return gpu_profiling_; }
  const std::string& prefix() const { return config_.options.log_path; }
  void setSampling(bool on);
  // Records a "dump" incident now (gpufl::dump, `gpufl dump PID`); written at the writer's next
  // round.
  bool dump(std::string_view reason);
  // A benchmark measured on any thread: written by the writer thread's next round (sid and, when 0,
  // ts_ns set here).
  void addBenchmark(BenchmarkResult result);
  const SessionEnd& end() const { return end_; }  // filled by stop()
  uint32_t generation() const { return generation_; }

  // SessionContext
  const std::string& sessionId() const override { return start_.session_id; }
  const std::string& sid() const override { return start_.sid; }
  const InitOptions& options() const override { return config_.options; }
  Engine engine() const override { return start_.engine; }
  int64_t startNs() const override { return start_.start_ns; }
  ClockFn clock() const override;
  void addNote(std::string_view feature, std::string_view status, std::string_view reason) override;
  void addDevice(const DeviceInfo& device) override;
  void requestDrain() override { writer_.wake(); }
  core::FlightRecorder* flight() override { return &flight_; }

 private:
  explicit Session(SessionConfig config);
  bool open(std::string* error);
  void startCollectors();
  std::chrono::milliseconds
  round() noexcept;          // [writer thread] (or the stopping thread, for the last round)
  void writePendingNotes();  // [writer thread]
  // [writer thread] Incidents captured (at or before captured_by_ns), written and flushed.
  void writeIncidents(int64_t captured_by_ns = INT64_MAX);
  void checkLogWrites();  // [writer thread] says once when records could not be written
  // Health records (session_health.cpp): the reporter made after the collectors started; one record
  // (the last before session_end when `final`), and the step-down acted on.
  void startHealth();
  void writeHealth(int64_t now_ns, bool final) noexcept;             // [writer thread]
  void fillDropped(std::map<std::string, uint64_t>& dropped) const;  // the session's own drops
  void collectorFailed(size_t index, const char* what, const char* step) noexcept;
  void debug(const std::string& message) const;

  SessionConfig config_;
  SessionStart start_;
  SessionEnd end_;
  std::unique_ptr<log::LogWriter> log_;
  std::unique_ptr<SessionSink> sink_;
  core::FlightRecorder flight_;  // before the collectors, which fill it, and outliving them
  std::vector<std::unique_ptr<core::Collector>> collectors_;
  std::vector<std::string> collector_names_;
  WriterThread writer_;
  ControlChannel control_;  // `gpufl dump PID` and other requests from outside
  uint32_t generation_ = 0;
  bool gpu_profiling_ = false;
  bool write_failure_said_ = false;  // [writer thread]
  bool starting_ = true;             // addDevice is only accepted while collectors start
  bool stopped_ = false;
  int64_t last_flush_ns_ = 0;
  int64_t last_round_ns_ = 0;  // [writer thread] when the latest round drained the buffers
  int64_t init_ns_ = 0;        // wall time of start(), on the thread that called init
  // Where init's and shutdown's time went, part by part (log, each collector, the last round...),
  // for the gpufl_time note: "name ms" entries.
  std::vector<std::pair<std::string, int64_t>> init_parts_, shutdown_parts_;
  uint64_t dropped_[core::kSourceCount] = {};  // [writer thread]
  std::unique_ptr<HealthReporter> health_;

  std::mutex notes_mu_;
  std::vector<Note> pending_notes_;                  // guarded by notes_mu_
  std::set<std::string> refusals_said_;              // guarded by notes_mu_: features refused
  std::vector<BenchmarkResult> pending_benchmarks_;  // guarded by notes_mu_
};

}  // namespace gpufl::runtime
