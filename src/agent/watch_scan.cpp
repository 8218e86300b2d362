#include "agent/watch_scan.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "log/segments.hpp"

namespace gpufl::agent {
namespace {

constexpr int kMaxDepth = 16;
constexpr const char* kChannels[] = {"device", "scope", "system"};

bool isChannel(std::string_view c) {
  for (const char* k : kChannels)
    if (c == k) return true;
  return false;
}

void addFile(const std::string& dir, const std::string& name, const std::string& only_base,
             ScanResult* out) {
  std::string_view channel = log::channelOfPath(name);
  if (!isChannel(channel)) return;
  std::string marker = ".";
  marker += channel;
  marker += '.';
  size_t at = name.rfind(marker);
  if (at == std::string::npos || at == 0) return;
  std::string base = name.substr(0, at);
  if (!only_base.empty() && base != only_base) return;
  auto seg = log::parseSegmentName(name, base, channel);
  if (!seg) return;
  std::string prefix = dir + "/" + base;
  StreamFiles& s = out->streams[prefix + "." + std::string(channel)];
  s.prefix = prefix;
  s.channel = std::string(channel);
  if (seg->number == 0) {
    s.has_active = true;
    return;
  }
  std::string path = dir + "/" + name;
  auto [it, inserted] = s.segments.emplace(seg->number, path);
  // The plain segment is complete while it exists; its .zst may still be in progress.
  if (!inserted && !seg->compressed) it->second = path;
}

void scanDir(const std::string& dir, const std::string& only_base, int depth, ScanResult* out,
             const std::function<void(const std::string&)>& refused) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  out->dirs.push_back(dir);
  std::vector<std::string> subdirs;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st {};
      if (::fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      type = S_ISLNK(st.st_mode)   ? DT_LNK
             : S_ISDIR(st.st_mode) ? DT_DIR
             : S_ISREG(st.st_mode) ? DT_REG
                                   : 0;
    }
    if (type == DT_LNK) {
      if (log::channelOfPath(name).empty())
        continue;  // only links posing as log files are worth a word
      refused(dir + "/" + name);
      continue;
    }
    if (type == DT_DIR) {
      if (only_base.empty() && depth < kMaxDepth && name[0] != '.')
        subdirs.push_back(dir + "/" + name);
      continue;
    }
    if (type == DT_REG) addFile(dir, name, only_base, out);
  }
  ::closedir(d);
  for (const std::string& sub : subdirs) scanDir(sub, only_base, depth + 1, out, refused);
}

}  // namespace

bool makeWatchRoot(const std::string& arg, WatchRoot* root, std::string* error) {
  char resolved[PATH_MAX];
  struct stat st {};
  if (::stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    if (::realpath(arg.c_str(), resolved) == nullptr) {
      *error = arg + ": " + std::strerror(errno);
      return false;
    }
    *root = WatchRoot{resolved, ""};
    return true;
  }
  size_t slash = arg.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : arg.substr(0, slash));
  std::string base = slash == std::string::npos ? arg : arg.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") {
    *error = arg + ": names neither a directory nor a log prefix";
    return false;
  }
  if (::realpath(dir.c_str(), resolved) == nullptr) {
    *error = dir + " (directory of prefix " + arg + "): " + std::strerror(errno);
    return false;
  }
  std::string d = resolved;
  if (d == "/") d.clear();
  *root = WatchRoot{d.empty() ? "/" : d, base};
  if (d.empty()) root->dir = "";
  return true;
}

ScanResult scanRoots(const std::vector<WatchRoot>& roots,
                     const std::function<void(const std::string&)>& refused) {
  ScanResult out;
  for (const WatchRoot& r : roots) scanDir(r.dir.empty() ? "/" : r.dir, r.base, 0, &out, refused);
  return out;
}

}  // namespace gpufl::agent
