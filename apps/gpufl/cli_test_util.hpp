// What the CLI's tests share: running `gpufl ARGS...` in-process with stdout, stderr and the FILE*
// that `cat` writes to all captured.
#pragma once

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace gpufl::cli::testing {

struct CliRun {
  int code = -1;
  std::string out, err;  // out: what went to the FILE* first, then to the stream
};

inline CliRun runCaptured(std::vector<std::string> args) {
  args.insert(args.begin(), "gpufl");
  std::FILE* f = std::tmpfile();
  std::ostringstream out, err;
  CliContext ctx{out, err, f};
  CliRun r;
  r.code = runCli(args, ctx);
  std::fflush(f);
  std::rewind(f);
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) r.out.append(buf, n);
  std::fclose(f);
  r.out += out.str();
  r.err = err.str();
  return r;
}

}  // namespace gpufl::cli::testing
