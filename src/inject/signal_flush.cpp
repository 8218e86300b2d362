#include "inject/signal_flush.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "gpufl/gpufl.hpp"

namespace gpufl::inject {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM};
struct sigaction g_previous[NSIG];
int g_pipe[2] = {-1, -1};
int g_flushed[2] = {-1, -1};  // the flush thread writes one byte once the session has ended
std::atomic<bool> g_installed{false};

void onSignal(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  bool program_handles_it = (prev.sa_flags & SA_SIGINFO)
                                ? prev.sa_sigaction != nullptr
                                : (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN);
  if (program_handles_it) {
    if (prev.sa_flags & SA_SIGINFO) {
      prev.sa_sigaction(sig, info, context);
    } else {
      prev.sa_handler(sig);
    }
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  unsigned char byte = static_cast<unsigned char>(sig);
  [[maybe_unused]] ssize_t n = write(g_pipe[1], &byte, 1);
}

void watch() {
  unsigned char byte = 0;
  while (read(g_pipe[0], &byte, 1) != 1) {
  }
  const int sig = byte;
  try {
    std::thread([] {
      gpufl::shutdown();
      const unsigned char done = 1;
      [[maybe_unused]] ssize_t n = write(g_flushed[1], &done, 1);
    }).detach();
    struct pollfd done {
      g_flushed[0], POLLIN, 0
    };
    poll(&done, 1, kStopFlushMs);
  } catch (...) {
    // No thread for the flush: the signal still ends the program.
  }
  sigaction(sig, &g_previous[sig], nullptr);
  raise(sig);
}

}  // namespace

bool installSignalFlush() {
  if (g_installed.exchange(true)) return true;
  if (pipe(g_pipe) != 0 || pipe(g_flushed) != 0) return false;
  for (int sig : kSignals) {
    struct sigaction sa {};
    sa.sa_sigaction = onSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, &g_previous[sig]);
  }
  try {
    std::thread(watch).detach();
  } catch (...) {
    return false;
  }
  return true;
}

}  // namespace gpufl::inject
