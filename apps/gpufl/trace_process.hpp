// How `gpufl trace` runs the program: as a job of its own that each signal reaches once, with its
// exit status passed back.
//
// - The program runs in its own process group. When gpufl is the foreground job of its controlling
// terminal
//   (found on stdin, stdout or stderr), the terminal is handed to that group, so Ctrl-C, Ctrl-\ and
//   Ctrl-Z reach the program (and whatever it starts) directly and gpufl not at all; gpufl takes it
//   back when the program ends.
// - Every other signal that reaches gpufl, sent to it or to its process group (kill -INT -PGID), is
// passed
//   on to the program's process group, as a terminal would deliver it. Not passed on: SIGKILL and
//   SIGSTOP (cannot be caught), SIGCHLD (about gpufl's own child), the faults only gpufl's own code
//   raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT), SIGTTIN and SIGTTOU
//   (gpufl's own terminal access), and signals gpufl was started with ignored (nohup): the program
//   inherits those ignored.
// - Job control, with a controlling terminal: when the program stops (Ctrl-Z, SIGSTOP, reading the
// terminal
//   from the background), gpufl takes the terminal back and stops the same way, so the shell sees
//   its job stopped; continued (fg, bg), gpufl hands the terminal over again when it is in the
//   foreground and continues the program. Without a terminal, a stopped program is left to whoever
//   stopped it, and SIGCONT is passed on like any other signal.
// - The program gets SIGKILL if gpufl dies (PR_SET_PDEATHSIG): it never outlives gpufl, as it could
// not when
//   a group kill -9 reached both.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpufl::cli {

struct ProgramRun {
  bool started =
      false;  // false: fork failed (errno_value says why); the program's own exec failure is
              // its exit status 126 (found, not executable) or 127 (not found), as a shell's
  int wait_status = 0;  // as waitpid gives it: WIFEXITED/WEXITSTATUS, WIFSIGNALED/WTERMSIG
  int errno_value = 0;
};

// Runs `command` (searched in PATH) with `env` added to gpufl's environment and GPUFL_ROOT_PID set
// to its pid, forwarding signals and handing over the terminal as above; returns when it has exited
// or been killed.
ProgramRun runProgram(const std::vector<std::string>& command,
                      const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace gpufl::cli
