#include "runtime/crash_signals.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <thread>

#include "core/clock.hpp"
#include "core/flight_recorder.hpp"
#include "core/scope_stack.hpp"
#include "gpufl/gpufl.hpp"

namespace gpufl::runtime {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
struct sigaction g_previous[NSIG];
int g_wake[2] = {-1, -1};  // the handler writes one byte: flush now
int g_done[2] = {-1, -1};  // the flush thread writes one byte when the session has ended
std::atomic<bool> g_installed{false};
std::atomic<bool> g_flushing{false};  // a crash or terminate asked for the flush already
std::atomic<bool> g_flushed{false};
std::terminate_handler g_previous_terminate = nullptr;

const char* signalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "signal";
  }
}

// Async-signal-safe text building (no snprintf in a handler).
struct Text {
  char* p;
  char* end;
  void put(const char* s) {
    while (*s != '\0' && p + 1 < end) *p++ = *s++;
    *p = '\0';
  }
  void hex(uint64_t v) {
    char digits[17];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v != 0);
    put("0x");
    while (n > 0 && p + 1 < end) *p++ = digits[--n];
    *p = '\0';
  }
  void dec(uint64_t v) {
    char digits[21];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0 && p + 1 < end) *p++ = digits[--n];
    *p = '\0';
  }
};

// Wakes the flush thread (once) and waits for it, at most kCrashFlushMs.
void flushBounded() {
  if (!g_flushing.exchange(true)) {
    const unsigned char byte = 1;
    [[maybe_unused]] ssize_t n = write(g_wake[1], &byte, 1);
  }
  if (g_flushed.load()) return;
  struct pollfd done {
    g_done[0], POLLIN, 0
  };
  int waited = 0;
  while (!g_flushed.load() && waited < kCrashFlushMs) {
    const int r = poll(&done, 1, 100);
    if (r > 0) break;
    waited += 100;
  }
}

void handOn(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  const bool has_handler = (prev.sa_flags & SA_SIGINFO)
                               ? prev.sa_sigaction != nullptr
                               : (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN);
  if (has_handler) {
    if (prev.sa_flags & SA_SIGINFO)
      prev.sa_sigaction(sig, info, context);
    else
      prev.sa_handler(sig);
    return;
  }
  // The default action (or ignore), re-raised: blocked until this handler returns, then delivered;
  // a fault also recurs when its instruction runs again.
  sigaction(sig, &prev, nullptr);
  raise(sig);
}

void onCrash(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  static std::atomic<bool> recorded{false};
  core::FlightRecorder* flight = core::FlightRecorder::current();
  if (flight != nullptr && !recorded.exchange(true) && !(sig == SIGABRT && g_flushing.load())) {
    core::IncidentTrigger t;
    t.kind = core::IncidentKind::Signal;
    t.error_code = sig;
    t.has_error_code = true;
    t.error_name = signalName(sig);
    t.tid = static_cast<uint32_t>(syscall(SYS_gettid));
    t.scope_path = core::currentScopePath();
    t.ts_ns = core::monotonicNs();
    Text text{t.reason, t.reason + sizeof t.reason};
    text.put(signalName(sig));
    if (sig != SIGABRT && info != nullptr) {
      text.put(" at address ");
      text.hex(reinterpret_cast<uintptr_t>(info->si_addr));
    }
    text.put(" in thread ");
    text.dec(t.tid);
    flight->trigger(t);
  }
  if (flight != nullptr) flushBounded();
  handOn(sig, info, context);
  errno = saved_errno;
}

void onTerminate() {
  if (core::FlightRecorder* flight = core::FlightRecorder::current()) {
    core::IncidentTrigger t;
    t.kind = core::IncidentKind::Terminate;
    t.api = "std::terminate";
    t.tid = static_cast<uint32_t>(syscall(SYS_gettid));
    t.scope_path = core::currentScopePath();
    t.ts_ns = core::monotonicNs();
    const char* what = "no exception in flight";
    if (std::exception_ptr e = std::current_exception()) {
      what = "an exception that is not a std::exception";
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        what = ex.what();
      } catch (...) {
      }
    }
    Text text{t.reason, t.reason + sizeof t.reason};
    text.put("std::terminate: ");
    text.put(what);
    flight->trigger(t);
    flushBounded();
  }
  if (g_previous_terminate != nullptr) g_previous_terminate();
  std::abort();
}

void flushThread() {
  unsigned char byte = 0;
  while (read(g_wake[0], &byte, 1) != 1) {
  }
  gpufl::shutdown();
  g_flushed.store(true);
  [[maybe_unused]] ssize_t n = write(g_done[1], &byte, 1);
}

}  // namespace

bool installCrashHandlers() {
  if (g_installed.exchange(true)) return true;
  if (pipe(g_wake) != 0 || pipe(g_done) != 0) return false;
  try {
    std::thread(flushThread).detach();
  } catch (...) {
    return false;
  }
  for (int sig : kSignals) {
    struct sigaction sa {};
    sa.sa_sigaction = onCrash;
    // SA_ONSTACK: a stack overflow's SIGSEGV runs on the program's alternate stack when it has one.
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, &g_previous[sig]);
  }
  g_previous_terminate = std::set_terminate(onTerminate);
  return true;
}

}  // namespace gpufl::runtime
