#include "monitor/app_activity.hpp"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gpufl::monitor {

namespace od = simdjson::ondemand;

namespace {
constexpr size_t kMaxLineBytes = 16u << 20;
// Read per poll over all files, at most, so that a tick (and a stop() waiting for it) stays short
// however much was appended; the rest is read by the next polls.
constexpr uint64_t kMaxBytesPerPoll = uint64_t{64} << 20;

// Reads a value when it has the type asked for; a field of another type is ignored like an absent
// one.
template <typename Result, typename T>
bool take(Result&& result, T& out) {
  return std::forward<Result>(result).get(out) == simdjson::SUCCESS;
}
// An object of numbers into `out` (entries of another type are left out).
void readCounts(od::value& v, std::map<std::string, uint64_t>& out) {
  od::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return;
  for (auto field : obj) {
    std::string_view key;
    uint64_t n = 0;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return;
    if (field.value().get_uint64().get(n) == simdjson::SUCCESS) out[std::string(key)] = n;
  }
}

// One field of a health record (the keys of docs/log-format.md's "health").
void readHealthField(std::string_view key, od::value& v, AppHealth& h) {
  if (key == "cpu_ns") {
    readCounts(v, h.cpu_ns);
  } else if (key == "dropped") {
    readCounts(v, h.dropped);
  } else if (key == "violations") {
    readCounts(v, h.violations);
  } else if (key == "records") {
    take(v.get_uint64(), h.records);
  } else if (key == "checked") {
    take(v.get_uint64(), h.checked);
  } else if (key == "rss_bytes") {
    take(v.get_uint64(), h.rss_bytes);
  } else if (key == "buffer_bytes") {
    take(v.get_uint64(), h.buffer_bytes);
  } else if (key == "clock_drift_ns") {
    h.has_clock = take(v.get_int64(), h.clock_drift_ns);
  } else if (key == "step_down") {
    od::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS) return;
    for (auto item : arr) {
      (void)item;
      ++h.step_downs;
    }
  }
}

}  // namespace

struct AppActivity::Parser {
  od::parser parser;
};

struct AppActivity::Session {
  std::string app;
  int64_t pid = 0;
  bool shown = true;                            // false: it had ended when first seen
  int64_t ended_ns = -1;                        // when its session_end was read
  std::map<uint32_t, std::string> device_uuid;  // CUDA device ordinal -> uuid
  std::map<uint32_t, uint32_t> def_device;      // kernel_def id -> device
  struct Count {
    uint64_t kernels = 0, ns = 0;
  };
  std::map<std::string, Count> by_uuid;
  bool has_health = false;
  AppHealth health;  // the latest health record (app, pid, sid filled in series())
};

struct AppActivity::File {
  ino_t ino = 0;
  uint64_t offset = 0;
  std::string partial;  // an unterminated last line, completed by the next read
  bool first_read = true;
};

AppActivity::AppActivity(std::vector<std::string> dirs, int64_t ended_keep_ns, size_t chunk_bytes)
    : dirs_(std::move(dirs)),
      ended_keep_ns_(ended_keep_ns),
      chunk_bytes_(chunk_bytes > 0 ? chunk_bytes : 1),
      parser_(std::make_unique<Parser>()) {}

AppActivity::~AppActivity() = default;

void AppActivity::issue(const std::string& key, const std::string& text) {
  if (text.empty()) {
    issue_open_.erase(key);
    return;
  }
  if (issue_open_[key]) return;
  issue_open_[key] = true;
  new_issues_.push_back(text);
}

std::vector<std::string> AppActivity::takeIssues() {
  return std::exchange(new_issues_, {});
}

void AppActivity::poll(int64_t now_ns) {
  namespace fs = std::filesystem;
  budget_ = kMaxBytesPerPoll;
  for (const std::string& dir : dirs_) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    issue("dir:" + dir, ec ? dir + ": cannot list (" + ec.message() + ")" : "");
    if (ec) continue;
    for (const fs::directory_entry& e : it) {
      const std::string name = e.path().filename().string();
      const std::string suffix = ".device.log";
      if (name.size() <= suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix))
        continue;
      const std::string path = e.path().string();
      // Only regular files, judged without following a link and without opening (the entry's type
      // from the listing): a FIFO or device named like a log is never opened.
      std::error_code type_ec;
      if (!e.is_symlink(type_ec) && e.is_regular_file(type_ec)) {
        readFile(path, files_[path], now_ns);
      } else {
        issue("file:" + path, path + ": not a regular file; skipped");
      }
    }
  }
  // Sessions that ended long enough ago are forgotten, so memory follows the live sessions.
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const Session& s = *it->second;
    if (s.ended_ns >= 0 && now_ns - s.ended_ns > ended_keep_ns_) {
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

void AppActivity::readFile(const std::string& path, File& f, int64_t now_ns) {
  // O_NOFOLLOW: a link planted in the directory is not followed to a file elsewhere. O_NONBLOCK: a
  // FIFO put there between the listing and this open() does not wait for a writer (fstat then
  // refuses it); regular files ignore the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    issue("file:" + path, errno == ENOENT ? "" : path + ": " + std::strerror(errno));
    return;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    issue("file:" + path, path + ": not a regular file; skipped");
    return;
  }
  issue("file:" + path, "");
  if (st.st_ino != f.ino || static_cast<uint64_t>(st.st_size) < f.offset) {
    f.ino = st.st_ino;  // a new file under the name (rotation): from its start
    f.offset = 0;
    f.partial.clear();
  }
  // Read in chunks, so that memory stays bounded whatever the file's size (a log that never
  // rotates).
  const uint64_t end = static_cast<uint64_t>(st.st_size);
  while (end > f.offset && budget_ > 0) {
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>({end - f.offset, chunk_bytes_, budget_}));
    // The new bytes after what is left of the previous read, with simdjson's padding behind.
    std::string buf = std::move(f.partial);
    const size_t keep = buf.size();
    buf.resize(keep + want + simdjson::SIMDJSON_PADDING);
    ssize_t n = ::pread(fd, buf.data() + keep, want, static_cast<off_t>(f.offset));
    if (n <= 0) {
      f.partial.assign(buf.data(), keep);
      break;
    }
    f.offset += static_cast<uint64_t>(n);
    budget_ -= std::min<uint64_t>(budget_, static_cast<uint64_t>(n));
    const size_t len = keep + static_cast<size_t>(n);
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos && nl < len; start = nl + 1) {
      line(std::string_view(buf.data() + start, nl - start), buf.size() - start, now_ns,
           f.first_read);
    }
    // A line longer than any record (garbage) is dropped rather than kept growing.
    if (len - start > kMaxLineBytes) start = len;
    f.partial.assign(buf.data() + start, len - start);
  }
  if (end <= f.offset) f.first_read = false;  // sessions ended before the first look: not shown
  ::close(fd);
}

// One record. `capacity`: readable bytes from text.data() (padding included).
void AppActivity::line(std::string_view text, size_t capacity, int64_t now_ns, bool first_read) {
  od::document doc;
  if (parser_->parser.iterate(text.data(), text.size(), capacity).get(doc) != simdjson::SUCCESS)
    return;
  od::object obj;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) return;
  std::string_view type, sid, app, uuid;
  int64_t pid = 0;
  uint64_t k = 0, dur = 0, device = 0, id = 0;
  bool has_k = false, has_dur = false, has_device = false, has_id = false;
  std::vector<std::pair<uint64_t, std::string>> devices;
  AppHealth health;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return;
    od::value v = field.value();
    if (key == "type") {
      if (v.get_string().get(type)) return;
      // Only these records matter; the others (memcpy, scopes, notes) are skipped after one field.
      if (type != "kernel_event" && type != "kernel_def" && type != "session_start" &&
          type != "session_end" && type != "device" && type != "health")
        return;
    } else if (key == "sid") {
      take(v.get_string(), sid);
    } else if (key == "k") {
      has_k = v.get_uint64().get(k) == simdjson::SUCCESS;
    } else if (key == "dur_ns") {
      has_dur = v.get_uint64().get(dur) == simdjson::SUCCESS;
    } else if (key == "device") {
      has_device = v.get_uint64().get(device) == simdjson::SUCCESS;
    } else if (key == "id") {
      has_id = v.get_uint64().get(id) == simdjson::SUCCESS;
    } else if (key == "uuid") {
      take(v.get_string(), uuid);
    } else if (key == "app") {
      take(v.get_string(), app);
    } else if (key == "pid") {
      take(v.get_int64(), pid);
    } else if (type == "health") {
      readHealthField(key, v, health);
    } else if (key == "devices") {
      od::array arr;
      if (v.get_array().get(arr)) continue;
      for (auto d : arr) {
        od::object dobj;
        if (d.get_object().get(dobj)) break;
        uint64_t did = 0;
        std::string_view duuid;
        for (auto df : dobj) {
          std::string_view dk;
          if (df.unescaped_key().get(dk)) break;
          if (dk == "id")
            take(df.value().get_uint64(), did);
          else if (dk == "uuid")
            take(df.value().get_string(), duuid);
        }
        devices.emplace_back(did, std::string(duuid));
      }
    }
  }
  if (type.empty() || sid.empty()) return;
  std::unique_ptr<Session>& slot = sessions_[std::string(sid)];
  if (!slot) {
    slot = std::make_unique<Session>();
  }
  Session& s = *slot;
  if (type == "session_start") {
    s.app = std::string(app);
    s.pid = pid;
    s.ended_ns = -1;
    s.shown = true;
    for (auto& [did, du] : devices) s.device_uuid[static_cast<uint32_t>(did)] = du;
  } else if (type == "device" && has_id) {
    s.device_uuid[static_cast<uint32_t>(id)] = std::string(uuid);
  } else if (type == "kernel_def" && has_k && has_device) {
    s.def_device[static_cast<uint32_t>(k)] = static_cast<uint32_t>(device);
  } else if (type == "kernel_event" && has_k && has_dur) {
    std::string gpu;
    if (auto d = s.def_device.find(static_cast<uint32_t>(k)); d != s.def_device.end()) {
      if (auto u = s.device_uuid.find(d->second); u != s.device_uuid.end()) gpu = u->second;
    }
    Session::Count& c = s.by_uuid[gpu];
    ++c.kernels;
    c.ns += dur;
  } else if (type == "health") {
    s.has_health = true;
    s.health = std::move(health);
  } else if (type == "session_end") {
    s.ended_ns = now_ns;
    if (first_read) s.shown = false;  // it ended before the monitor looked
  }
}

std::vector<AppHealth> AppActivity::health() const {
  std::vector<AppHealth> out;
  for (const auto& [sid, s] : sessions_) {
    if (!s->shown || !s->has_health || s->app == "gpufl-monitor") continue;
    AppHealth h = s->health;
    h.app = s->app;
    h.pid = s->pid;
    h.sid = sid;
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<AppSeries> AppActivity::series() const {
  std::vector<AppSeries> out;
  for (const auto& [sid, s] : sessions_) {
    if (!s->shown || s->app == "gpufl-monitor") continue;
    for (const auto& [uuid, c] : s->by_uuid)
      out.push_back({s->app, s->pid, sid, uuid, c.kernels, c.ns});
  }
  return out;
}

}  // namespace gpufl::monitor
