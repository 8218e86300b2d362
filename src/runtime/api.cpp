// The public C++ API (include/gpufl/gpufl.hpp): one process-wide Session behind a mutex, and the
// scope hot path straight into the core. Nothing here throws: every entry point catches everything.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "core/scope_stack.hpp"
#include "gpufl/bench.hpp"
#include "gpufl/gpufl.hpp"
#include "report/report.hpp"
#include "runtime/bench_record.hpp"
#include "runtime/collector_registry.hpp"
#include "runtime/crash_signals.hpp"
#include "runtime/options_env.hpp"
#include "runtime/session.hpp"

namespace gpufl {
namespace {

struct ApiState {
  std::mutex mu;
  std::unique_ptr<runtime::Session> session;  // guarded by mu
  bool gpu = false;
  std::string last_prefix;  // of the last session started (for generateReport)
  std::string last_session_id;
  bool handlers_registered = false;
  std::atomic<bool> inherited{false};  // set in a fork() child: `session` belongs to the parent
};

ApiState& api() {
  static ApiState* state = new ApiState();  // immortal: used from atexit and late destructors
  return *state;
}

void shutdownAtExit() {
  shutdown();
}

// fork(): our locks are held across it (API first, then the core's), so the child starts with
// consistent state. The child stops recording and drops the inherited session on its next API call:
// that session's writer thread does not exist there (joining it would hang) and its files are the
// parent's.
void forkPrepare() {
  api().mu.lock();
  core::forkPrepare();
}
void forkParent() {
  core::forkParent();
  api().mu.unlock();
}
void forkChild() {
  core::forkChild();
  runtime::Session::forgetAfterFork();
  api().inherited.store(true, std::memory_order_relaxed);
  api().mu.unlock();
}

// [under s.mu] Leaks a session inherited through fork(): never stopped, never destroyed.
void dropInherited(ApiState& s) {
  if (!s.inherited.exchange(false)) return;
  (void)s.session.release();
  s.gpu = false;
}

}  // namespace

bool init(const InitOptions& options) {
  try {
    ApiState& s = api();
    std::lock_guard lock(s.mu);
    dropInherited(s);
    if (s.session) {
      if (options.enable_debug_output || s.session->options().enable_debug_output)
        std::fprintf(stderr, "gpufl: init() while session %s is recording to %s: ignored\n",
                     s.session->sid().c_str(), s.session->prefix().c_str());
      return s.gpu;
    }
    std::string bad_disable;
    if (runtime::disabledByEnvironment(runtime::processEnvironment(), &bad_disable)) {
      std::fprintf(stderr,
                   "gpufl: GPUFL_DISABLE is set: nothing is recorded and no log is written (the "
                   "program runs on)\n");
      return false;
    }
    runtime::SessionConfig config;
    config.options = options;
    if (!bad_disable.empty())
      config.option_issues.push_back(
          {"GPUFL_DISABLE", "GPUFL_DISABLE='" + bad_disable +
                                "' is not a boolean (1/0, true/false, yes/no, on/off); recording"});
    runtime::applyEnvOverrides(config.options, runtime::processEnvironment(),
                               &config.option_issues);
    runtime::resolveOptions(config.options, &config.option_issues);
    config.factories = runtime::collectorFactories();
    std::string error;
    auto session = runtime::Session::start(std::move(config), &error);
    if (!session) {
      std::fprintf(stderr, "gpufl: %s; not recording (the program continues)\n", error.c_str());
      return false;
    }
    // Under `gpufl trace` (or with GPUFL_LOG_PATH set) the program's own log_path is replaced: say
    // where the logs went, or a script that reads back its log_path finds an older session.
    const char* env_path = runtime::processEnvironment()("GPUFL_LOG_PATH");
    if (env_path != nullptr && *env_path != '\0' && !options.log_path.empty() &&
        options.log_path != env_path) {
      std::fprintf(stderr,
                   "gpufl: log_path '%s' is replaced by GPUFL_LOG_PATH%s: this session's logs are "
                   "%s.{device,scope,system}.log\n",
                   options.log_path.c_str(),
                   std::getenv("GPUFL_ROOT_PID") != nullptr ? " (set by gpufl trace)" : "",
                   session->prefix().c_str());
    }
    if (session->options().incident_signals && !runtime::installCrashHandlers())
      session->addNote("incident_signals", "off",
                       "the crash handlers could not be installed (no pipe or thread)");
    s.gpu = session->gpuProfiling();
    s.last_prefix = session->prefix();
    s.last_session_id = session->sessionId();
    s.session = std::move(session);
    if (!s.handlers_registered) {
      // A program that forgets shutdown() still gets a complete log.
      std::atexit(&shutdownAtExit);
      pthread_atfork(&forkPrepare, &forkParent, &forkChild);
      s.handlers_registered = true;
    }
    return s.gpu;
  } catch (...) {
    return false;
  }
}

void shutdown() {
  try {
    ApiState& s = api();
    std::unique_ptr<runtime::Session> session;
    std::lock_guard lock(s.mu);
    dropInherited(s);
    session = std::move(s.session);
    s.gpu = false;
    if (session) session->stop();
  } catch (...) {
  }
}

bool isProfiling() {
  try {
    ApiState& s = api();
    std::lock_guard lock(s.mu);
    dropInherited(s);
    return s.session != nullptr && s.gpu;
  } catch (...) {
    return false;
  }
}

bool isRecording() {
  try {
    ApiState& s = api();
    std::lock_guard lock(s.mu);
    dropInherited(s);
    return s.session != nullptr;
  } catch (...) {
    return false;
  }
}

bool generateReport(const std::string& log_path, int top_n) {
  try {
    std::string prefix = log_path;
    std::string session;
    if (prefix.empty()) {
      ApiState& s = api();
      std::lock_guard lock(s.mu);
      prefix = s.last_prefix;
      session = s.last_session_id;
    }
    if (prefix.empty()) {
      std::fprintf(
          stderr,
          "gpufl: generateReport: no session ran in this process and no log_path was given\n");
      return false;
    }
    report::ReportOptions ro;
    ro.top_n = top_n;
    const report::ReportOutput out = report::reportFromPrefix(prefix, session, ro, false);
    constexpr size_t kMaxWarnings = 10;
    for (size_t i = 0; i < out.warnings.size() && i < kMaxWarnings; ++i)
      std::fprintf(stderr, "gpufl: %s\n", out.warnings[i].c_str());
    if (out.warnings.size() > kMaxWarnings)
      std::fprintf(stderr, "gpufl: ... %zu more warnings\n", out.warnings.size() - kMaxWarnings);
    if (!out.ok) {
      std::fprintf(stderr, "gpufl: generateReport: %s\n", out.error.c_str());
      return false;
    }
    std::fwrite(out.text.data(), 1, out.text.size(), stdout);
    std::fflush(stdout);
    return true;
  } catch (...) {
    return false;
  }
}

bool dump(std::string_view reason) {
  try {
    ApiState& s = api();
    std::lock_guard lock(s.mu);
    dropInherited(s);
    return s.session != nullptr && s.session->dump(reason);
  } catch (...) {
    return false;
  }
}

void startSystemSampling() {
  try {
    ApiState& s = api();
    std::lock_guard lock(s.mu);
    dropInherited(s);
    if (s.session) s.session->setSampling(true);
  } catch (...) {
  }
}

void stopSystemSampling() {
  try {
    ApiState& s = api();
    std::lock_guard lock(s.mu);
    dropInherited(s);
    if (s.session) s.session->setSampling(false);
  } catch (...) {
  }
}

bool recordBenchmark(const BenchResult& result) {
  try {
    if (!result.ok) return false;
    ApiState& s = api();
    std::lock_guard lock(s.mu);
    dropInherited(s);
    if (!s.session) return false;
    s.session->addBenchmark(runtime::benchmarkRecord(result));
    return true;
  } catch (...) {
    return false;
  }
}

Scope::Scope(std::string_view name, std::string_view tag) : id_(core::scopeBegin(name, tag)) {}

Scope::~Scope() {
  core::scopeEnd(id_);
}

uint64_t scopeBegin(std::string_view name, std::string_view tag) {
  return core::scopeBegin(name, tag);
}

void scopeEnd(uint64_t id) {
  core::scopeEnd(id);
}

}  // namespace gpufl
