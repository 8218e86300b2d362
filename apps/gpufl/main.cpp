// The `gpufl` executable: everything but the process lives in cli.cpp and the cmd_*.cpp
// subcommands.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  gpufl::cli::CliContext ctx{std::cout, std::cerr};
  ctx.err_is_terminal = isatty(STDERR_FILENO) != 0;
  ctx.out_is_terminal = isatty(STDOUT_FILENO) != 0;
  const int code = gpufl::cli::runCli(args, ctx);
  if (ctx.reraise_signal != 0) {
    std::cout.flush();
    std::cerr.flush();
    // The program dumped its own core where it was allowed to; gpufl must not add one of itself.
    const struct rlimit no_core { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    signal(ctx.reraise_signal, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, ctx.reraise_signal);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    raise(ctx.reraise_signal);
  }
  return code;
}
