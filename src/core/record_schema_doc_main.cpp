// gpufl_schema_doc check|write FILE: checks that FILE (docs/log-format.md) holds the field
// reference generated from the field tables, or rewrites it there. Exit 1 when it is not current
// (check), 2 on an error.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/record_schema_doc.hpp"

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "check" && mode != "write") {
    std::fprintf(stderr, "usage: gpufl_schema_doc check|write docs/log-format.md\n");
    return 2;
  }
  const std::string path = argv[2];
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "gpufl_schema_doc: cannot read %s\n", path.c_str());
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  std::string why;
  const auto want = gpufl::schema::withFieldReference(doc, &why);
  if (!want) {
    std::fprintf(stderr, "gpufl_schema_doc: %s: %s\n", path.c_str(), why.c_str());
    return 2;
  }
  if (*want == doc) return 0;
  if (mode == "check") {
    std::fprintf(stderr,
                 "gpufl_schema_doc: %s: the field reference is not current with "
                 "src/core/record_schema.hpp; run: build/dev/src/core/gpufl_schema_doc write %s\n",
                 path.c_str(), path.c_str());
    return 1;
  }
  std::ofstream out(path, std::ios::trunc);
  out << *want;
  if (!out.flush()) {
    std::fprintf(stderr, "gpufl_schema_doc: cannot write %s\n", path.c_str());
    return 2;
  }
  return 0;
}
