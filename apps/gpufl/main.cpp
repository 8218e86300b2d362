// The `gpufl` executable: everything but the process lives in cli.cpp and the cmd_*.cpp
// subcommands.
#include <signal.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  gpufl::cli::CliContext ctx{std::cout, std::cerr};
  const int code = gpufl::cli::runCli(args, ctx);
  if (ctx.reraise_signal != 0) {
    std::cout.flush();
    std::cerr.flush();
    signal(ctx.reraise_signal, SIG_DFL);
    raise(ctx.reraise_signal);
  }
  return code;
}
