// The `gpufl` executable: everything but the process lives in cli.cpp and the cmd_*.cpp
// subcommands.
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  gpufl::cli::CliContext ctx{std::cout, std::cerr};
  return gpufl::cli::runCli(args, ctx);
}
