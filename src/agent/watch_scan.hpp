// Finds the channel files under the agent's watched roots: each root is a directory (searched
// recursively) or a log prefix (`dir/run` for dir/run.device.log ...). Symbolic links are never
// followed, so nothing outside the watched trees is read.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpufl::agent {

struct WatchRoot {
  std::string dir;   // absolute, symlinks resolved once at start (the user named it)
  std::string base;  // empty: every prefix under dir, recursively; else only dir/base
};

// Turns a command-line PREFIX_OR_DIR into a root; false with *error when its directory does not
// exist.
bool makeWatchRoot(const std::string& arg, WatchRoot* root, std::string* error);

// The files of one channel of one prefix.
struct StreamFiles {
  std::string prefix;   // dir/base
  std::string channel;  // device, scope or system
  std::map<uint64_t, std::string>
      segments;  // N -> path (the plain file while it exists, else the .zst)
  bool has_active = false;
  std::string activePath() const { return prefix + "." + channel + ".log"; }
  std::string key() const { return prefix + "." + channel; }
};

struct ScanResult {
  std::map<std::string, StreamFiles> streams;  // by key()
  std::vector<std::string> dirs;               // directories searched (for inotify)
};

// `refused` is told about each symbolic link met (by path).
ScanResult scanRoots(const std::vector<WatchRoot>& roots,
                     const std::function<void(const std::string&)>& refused);

}  // namespace gpufl::agent
