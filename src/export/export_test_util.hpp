// Helpers of the export tests: a fresh temporary directory whose entries can be listed (to check
// that nothing is left behind), and a file's whole text.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpufl::exporter::testing {

inline std::string textOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

struct Dir {
  std::filesystem::path path;
  Dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpufl_export_XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path))
      out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace gpufl::exporter::testing
