#include "trace_process.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gpufl::cli {
namespace {

// The program's pid, which is its process group; 0 when none runs. Read by the signal handler.
volatile sig_atomic_t g_program = 0;
// Whether the handler passes SIGCONT on: not under job control, where gpufl continues the program
// itself after handing it the terminal (a SIGCONT passed on first would let it hit the terminal too
// early).
volatile sig_atomic_t g_forward_cont = 1;

bool neverForwarded(int sig) {
  switch (sig) {
    case SIGKILL:
    case SIGSTOP:
    case SIGCHLD:
    case SIGSEGV:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGTRAP:
    case SIGSYS:
    case SIGABRT:
    case SIGTTIN:
    case SIGTTOU:
      return true;
    default:
      return false;
  }
}

void forward(int sig) {
  const pid_t program = g_program;
  if (program <= 0 || (sig == SIGCONT && !g_forward_cont)) return;
  const int saved = errno;
  if (kill(-program, sig) != 0) kill(program, sig);  // it left its process group: the program alone
  errno = saved;
}

// The forwarding handler on every signal that is passed on, and gpufl's dispositions and mask from
// before.
class Forwarding {
 public:
  Forwarding() {
    sigemptyset(&set_);
    struct sigaction sa {};
    sa.sa_handler = forward;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig) {
      if (neverForwarded(sig)) continue;
      struct sigaction old {};
      // Fails for the real-time signals glibc keeps for itself.
      if (sigaction(sig, nullptr, &old) != 0) continue;
      if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
      sigaddset(&set_, sig);
    }
    // waitpid needs SIGCHLD not ignored (an inherited SIG_IGN reaps the program unseen); the
    // program inherits gpufl's.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &old_chld_);
    // Blocked until the program's pid is known, so that none arrives with nowhere to go.
    sigprocmask(SIG_BLOCK, &set_, &mask_);
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(&set_, sig) == 1) sigaction(sig, &sa, &old_[sig]);
  }
  Forwarding(const Forwarding&) = delete;
  Forwarding& operator=(const Forwarding&) = delete;

  void unblock() { sigprocmask(SIG_SETMASK, &mask_, nullptr); }
  // Async-signal-safe: the child calls it between fork and exec.
  void restore() {
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(&set_, sig) == 1) sigaction(sig, &old_[sig], nullptr);
    sigaction(SIGCHLD, &old_chld_, nullptr);
    sigprocmask(SIG_SETMASK, &mask_, nullptr);
  }

 private:
  sigset_t set_;
  sigset_t mask_;
  struct sigaction old_[NSIG] = {};
  struct sigaction old_chld_ {};
};

// The controlling terminal, when one of stdin, stdout, stderr is it (-1 otherwise), and job control
// on it. SIGTTOU is ignored meanwhile: gpufl moves the terminal between process groups while in the
// background.
class Terminal {
 public:
  Terminal() {
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
      if (isatty(fd) && tcgetpgrp(fd) > 0) {
        fd_ = fd;
        break;
      }
    }
    if (fd_ < 0) return;
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGTTOU, &ign, &old_ttou_);
  }
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;
  ~Terminal() {
    takeBack();
    if (fd_ >= 0) sigaction(SIGTTOU, &old_ttou_, nullptr);
  }

  bool present() const { return fd_ >= 0; }
  // gpufl's process group holds the terminal.
  bool foreground() const { return fd_ >= 0 && tcgetpgrp(fd_) == own_group_; }
  // To the program's group. Parent and child both do it (the child before exec, so that the program
  // owns the terminal whichever process runs first); only the parent's handed_ counts.
  // Async-signal-safe.
  void handTo(pid_t group) {
    tcsetpgrp(fd_, group);
    handed_ = true;
  }
  void takeBack() {
    if (handed_) tcsetpgrp(fd_, own_group_);
    handed_ = false;
  }
  // In the child, before exec: SIGTTOU as gpufl found it.
  void restoreInChild() {
    if (fd_ >= 0) sigaction(SIGTTOU, &old_ttou_, nullptr);
  }

 private:
  int fd_ = -1;
  pid_t own_group_ = getpgrp();
  bool handed_ = false;
  struct sigaction old_ttou_ {};
};

// The program stopped: gpufl stops too, with the terminal back, so that the shell sees the job
// stopped (a stop for terminal access stops gpufl the same way, so the shell says why). Continued,
// it hands the terminal over when in the foreground and continues the program; one stopped for
// terminal access stays stopped while gpufl is in the background, as it would without gpufl.
void followStop(int stop_sig, pid_t program, Terminal& terminal) {
  terminal.takeBack();
  const bool tty_stop = stop_sig == SIGTTIN || stop_sig == SIGTTOU;
  const int own = tty_stop ? stop_sig : SIGTSTP;
  struct sigaction dfl {
  }, saved{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(own, &dfl, &saved);
  raise(own);  // returns when continued (at once in an orphaned process group, which cannot stop)
  sigaction(own, &saved, nullptr);
  const bool foreground = terminal.foreground();
  if (foreground) terminal.handTo(program);
  if (foreground || !tty_stop) kill(-program, SIGCONT);
}

[[noreturn]] void execProgram(const std::vector<std::string>& command,
                              const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
  // The traced program keeps this pid through exec; processes it starts log under their own.
  setenv("GPUFL_ROOT_PID", std::to_string(getpid()).c_str(), 1);
  std::vector<char*> argv;
  for (const auto& s : command) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int error = errno;
  std::fprintf(stderr, "gpufl trace: cannot run %s: %s\n", argv[0], std::strerror(error));
  // As a shell: 127 when there is no such program, 126 when it is there but cannot be run.
  _exit(error == ENOENT || error == ENOTDIR ? 127 : 126);
}

}  // namespace

ProgramRun runProgram(const std::vector<std::string>& command,
                      const std::vector<std::pair<std::string, std::string>>& env) {
  ProgramRun run;
  Terminal terminal;
  const bool hand_over = terminal.foreground();
  g_forward_cont = terminal.present() ? 0 : 1;
  Forwarding forwarding;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    run.errno_value = errno;
    forwarding.restore();
    return run;
  }
  if (pid == 0) {
    forwarding
        .restore();  // dispositions and mask as gpufl found them; blocked signals arrive after exec
    setpgid(0, 0);
    if (hand_over) terminal.handTo(getpid());
    terminal.restoreInChild();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) raise(SIGKILL);  // gpufl died before the line above
    execProgram(command, env);
  }
  setpgid(pid, pid);  // also here, so the group exists before either process goes on
  if (hand_over) terminal.handTo(pid);
  g_program = pid;
  forwarding.unblock();
  run.started = true;
  const int options = terminal.present() ? WUNTRACED : 0;
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, options) < 0) {
      if (errno == EINTR) continue;
      run.errno_value = errno;  // not expected for our own child: reported as killed
      status = SIGKILL;
    }
    if (WIFSTOPPED(status)) {
      followStop(WSTOPSIG(status), pid, terminal);
      continue;
    }
    run.wait_status = status;
    break;
  }
  g_program = 0;
  terminal.takeBack();
  forwarding.restore();
  return run;
}

}  // namespace gpufl::cli
