#include "log/segments.hpp"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <list>
#include <map>
#include <mutex>
#include <system_error>
#include <unordered_map>

#include "log/reader.hpp"

namespace gpufl::log {
namespace {

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::optional<SegmentName> parseSegmentName(std::string_view name, std::string_view base,
                                            std::string_view channel) {
  if (!consume(name, base) || !consume(name, ".") || !consume(name, channel) || !consume(name, "."))
    return std::nullopt;
  if (name == "log") return SegmentName{};
  size_t digits = 0;
  while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9') ++digits;
  // 20 digits would overflow; no writer gets anywhere near that many segments.
  if (digits < 6 || digits > 19) return std::nullopt;
  uint64_t number = 0;
  for (size_t i = 0; i < digits; ++i) number = number * 10 + static_cast<uint64_t>(name[i] - '0');
  name.remove_prefix(digits);
  if (number == 0) return std::nullopt;
  if (name == ".log") return SegmentName{number, false};
  if (name == ".log.zst") return SegmentName{number, true};
  return std::nullopt;
}

namespace {

// Splits "…<base>.<channel>[.<N>].log[.zst]" into channel and N (0 when absent); false for other
// names.
bool splitChannelPath(std::string_view path, std::string_view* channel, uint64_t* number) {
  const auto strip = [&](std::string_view suffix) {
    if (path.size() < suffix.size() || path.substr(path.size() - suffix.size()) != suffix)
      return false;
    path.remove_suffix(suffix.size());
    return true;
  };
  strip(".zst");
  if (!strip(".log")) return false;
  size_t digits = 0;
  while (digits < path.size() && path[path.size() - 1 - digits] >= '0' &&
         path[path.size() - 1 - digits] <= '9')
    ++digits;
  *number = 0;
  if (digits > 0 && digits <= 19 && digits < path.size() && path[path.size() - 1 - digits] == '.') {
    for (const char c : path.substr(path.size() - digits))
      *number = *number * 10 + static_cast<uint64_t>(c - '0');
    path.remove_suffix(digits + 1);
  }
  const size_t dot = path.find_last_of("./");
  if (dot == std::string_view::npos || path[dot] != '.') return false;
  *channel = path.substr(dot + 1);
  return true;
}

}  // namespace

std::string_view channelOfPath(std::string_view path) {
  std::string_view channel;
  uint64_t number = 0;
  return splitChannelPath(path, &channel, &number) ? channel : std::string_view{};
}

uint64_t segmentNumberOfPath(std::string_view path) {
  std::string_view channel;
  uint64_t number = 0;
  return splitChannelPath(path, &channel, &number) ? number : 0;
}

std::vector<SegmentGap> segmentGaps(const std::vector<std::string>& inputs) {
  std::map<std::string_view, uint64_t> last;  // channel -> highest segment number so far
  std::vector<SegmentGap> gaps;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string_view channel;
    uint64_t number = 0;
    if (!splitChannelPath(inputs[i], &channel, &number) || number == 0) continue;
    uint64_t& prev = last[channel];
    if (number > prev + 1)
      gaps.push_back(SegmentGap{std::string(channel), prev + 1, number - 1, i});
    prev = std::max(prev, number);
  }
  return gaps;
}

bool isCompressedPath(std::string_view path) {
  return path.size() >= 4 && path.substr(path.size() - 4) == ".zst";
}

namespace {

// The names of one directory that end like channel files, by base name (the part before
// ".<channel>"), listed once and kept while the directory is unchanged, so that reading many
// prefixes of one large directory lists it once rather than once per prefix and channel.
//
// Unchanged: same device, inode and mtime as when listed. A change in the same timestamp tick as
// the previous one would leave the mtime as it was, so a listing taken less than kSettle after the
// directory's mtime is not trusted (the directory is listed again) until the mtime is older than
// that: a live directory is listed every time, a settled one once.
class ListingCache {
 public:
  using Names = std::vector<std::string>;

  // The names under `base` in `dir` (empty when it cannot be listed).
  Names namesOf(const std::filesystem::path& dir, std::string_view base) {
    struct stat st {};
    const std::string key = dir.string();
    const bool have_stat = ::stat(key.c_str(), &st) == 0;
    std::lock_guard<std::mutex> lock(mutex_);
    Entry* e = nullptr;
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->dir != key) continue;
      if (have_stat && it->trusted && it->dev == st.st_dev && it->ino == st.st_ino &&
          it->mtime_ns == mtimeNs(st)) {
        entries_.splice(entries_.begin(), entries_, it);  // most recently used first
        e = &entries_.front();
      } else {
        entries_.erase(it);
      }
      break;
    }
    if (e == nullptr) {
      Entry fresh;
      fresh.dir = key;
      if (!list(dir, fresh)) return {};
      if (have_stat) {
        fresh.dev = st.st_dev;
        fresh.ino = st.st_ino;
        fresh.mtime_ns = mtimeNs(st);
        fresh.trusted = fresh.listed_at_ns - fresh.mtime_ns > kSettleNs;
      }
      entries_.push_front(std::move(fresh));
      if (entries_.size() > kKept) entries_.pop_back();
      e = &entries_.front();
    }
    const auto found = e->by_base.find(std::string(base));
    return found == e->by_base.end() ? Names{} : found->second;
  }

  uint64_t listings() const { return listings_.load(); }

 private:
  static constexpr int64_t kSettleNs = 2'000'000'000;  // beyond coarse timestamps and clock skew
  static constexpr size_t kKept = 4;                   // directories kept

  struct Entry {
    std::string dir;
    dev_t dev = 0;
    ino_t ino = 0;
    int64_t mtime_ns = 0, listed_at_ns = 0;
    bool trusted = false;
    std::unordered_map<std::string, Names> by_base;
  };

  static int64_t mtimeNs(const struct stat& st) {
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  }

  bool list(const std::filesystem::path& dir, Entry& e) {
    namespace fs = std::filesystem;
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);  // the clock file timestamps come from
    e.listed_at_ns = static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    if (ec) return false;
    listings_++;
    for (; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      std::string_view channel;
      uint64_t number = 0;
      if (!splitChannelPath(name, &channel, &number)) continue;
      const size_t base_size = static_cast<size_t>(channel.data() - name.data()) - 1;
      e.by_base[name.substr(0, base_size)].push_back(std::move(name));
    }
    return true;
  }

  std::mutex mutex_;
  std::list<Entry> entries_;
  std::atomic<uint64_t> listings_{0};
};

ListingCache& listingCache() {
  static ListingCache cache;
  return cache;
}

}  // namespace

uint64_t directoryListings() {
  return listingCache().listings();
}

// Segment N may exist both plain and compressed: the writer deletes the plain file only once the
// .zst is complete, so seeing both means a compression is in progress or was interrupted. The plain
// file is then the complete one and is taken; the .zst is ignored without a warning because this is
// the normal state of a live session while its compressor runs.
std::vector<std::string> channelFiles(const std::string& prefix, Channel channel) {
  namespace fs = std::filesystem;
  const fs::path prefix_path(prefix);
  const std::string base = prefix_path.filename().string();
  const fs::path dir = prefix_path.has_parent_path() ? prefix_path.parent_path() : fs::path(".");
  const std::string_view channel_name = channelName(channel);

  std::map<uint64_t, std::string> segments;  // N -> file name (plain wins over .zst)
  bool have_active = false;
  for (const std::string& name : listingCache().namesOf(dir, base)) {
    const auto seg = parseSegmentName(name, base, channel_name);
    // Whatever the entry is (a directory, a FIFO), it is taken: opening it says what is wrong with
    // it.
    if (!seg) continue;
    if (seg->number == 0) {
      have_active = true;
      continue;
    }
    auto [pos, inserted] = segments.emplace(seg->number, name);
    if (!inserted && !seg->compressed) pos->second = name;
  }

  // Paths keep the directory part of the prefix as the user wrote it ("run" stays
  // "run.device.log").
  const bool ends_with_base = prefix.size() >= base.size() &&
                              prefix.compare(prefix.size() - base.size(), base.size(), base) == 0;
  const std::string dir_part =
      ends_with_base ? prefix.substr(0, prefix.size() - base.size()) : (dir / "").string();
  std::vector<std::string> files;
  files.reserve(segments.size() + 1);
  for (const auto& [number, name] : segments) files.push_back(dir_part + name);
  if (have_active) files.push_back(prefix + "." + std::string(channel_name) + ".log");
  return files;
}

}  // namespace gpufl::log
