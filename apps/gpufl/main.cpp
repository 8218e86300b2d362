#include <CLI/CLI.hpp>
#include <iostream>

#include "gpufl/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"GPU Flight: a flight recorder for CUDA programs"};
  app.set_version_flag("--version", std::string("gpufl ") + gpufl::kVersion);
  app.require_subcommand(0);
  CLI11_PARSE(app, argc, argv);
  std::cout << app.help();
  return 0;
}
