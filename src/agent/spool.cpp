#include "agent/spool.hpp"

#include <dirent.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "agent/durable_file.hpp"
#include "log/json_escape.hpp"

namespace gpufl::agent {

std::string encodeHeader(const BatchHeader& h) {
  std::string out = "{\"id\":" + std::to_string(h.id) + ",\"key\":";
  log::appendJsonString(out, h.key);
  out += ",\"prefix\":";
  log::appendJsonString(out, h.prefix);
  out += ",\"channel\":";
  log::appendJsonString(out, h.channel);
  out += ",\"seg\":" + std::to_string(h.seg) + ",\"first_line\":" + std::to_string(h.first_line) +
         ",\"last_line\":" + std::to_string(h.last_line) +
         ",\"records\":" + std::to_string(h.records) +
         ",\"text_bytes\":" + std::to_string(h.text_bytes) +
         ",\"created_unix_ms\":" + std::to_string(h.created_unix_ms) + ",\"session_ends\":[";
  for (size_t i = 0; i < h.session_ends.size(); ++i) {
    if (i) out += ',';
    log::appendJsonString(out, h.session_ends[i]);
  }
  out += "],\"target\":" + std::to_string(static_cast<int>(h.target)) + "}";
  return out;
}

bool decodeHeader(std::string_view line, BatchHeader* h, std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(line)).get(doc)) {
    *error = "header is not valid JSON";
    return false;
  }
  BatchHeader out;
  std::string_view key, prefix, channel;
  if (doc["id"].get_uint64().get(out.id) || doc["key"].get_string().get(key) ||
      doc["prefix"].get_string().get(prefix) || doc["channel"].get_string().get(channel) ||
      doc["seg"].get_uint64().get(out.seg) || doc["first_line"].get_uint64().get(out.first_line) ||
      doc["last_line"].get_uint64().get(out.last_line) ||
      doc["records"].get_uint64().get(out.records) ||
      doc["text_bytes"].get_uint64().get(out.text_bytes) ||
      doc["created_unix_ms"].get_int64().get(out.created_unix_ms)) {
    *error =
        "header lacks a field (id, key, prefix, channel, seg, first_line, last_line, records, ...)";
    return false;
  }
  out.key = key;
  out.prefix = prefix;
  out.channel = channel;
  simdjson::dom::array ends;
  if (!doc["session_ends"].get_array().get(ends)) {
    for (auto e : ends) {
      std::string_view s;
      if (!e.get_string().get(s)) out.session_ends.emplace_back(s);
    }
  }
  uint64_t target = 0;
  if (!doc["target"].get_uint64().get(target) && target <= 2)
    out.target = static_cast<BatchHeader::Target>(target);
  *h = std::move(out);
  return true;
}

std::string Spool::pathOf(uint64_t id) const {
  char name[40];
  std::snprintf(name, sizeof name, "%020" PRIu64 ".batch", id);
  return dir_ + "/" + name;
}

bool Spool::open(const std::string& dir, uint64_t max_bytes, std::string* error) {
  dir_ = dir;
  max_bytes_ = max_bytes;
  if (!makeDirs(dir, error)) return false;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    *error = dir + ": cannot list";
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() == 26 && name.substr(20) == ".batch") {
      struct stat st {};
      std::string path = dir + "/" + name;
      if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      uint64_t id = std::strtoull(name.c_str(), nullptr, 10);
      sizes_[id] = static_cast<uint64_t>(st.st_size);
      created_[id] = static_cast<int64_t>(st.st_mtime) * 1000;
      bytes_ += static_cast<uint64_t>(st.st_size);
    } else if (name.size() > 4 && name.substr(name.size() - 4) == ".tmp") {
      ::unlink(
          (dir + "/" + name).c_str());  // a put that a kill interrupted; its lines are read again
    }
  }
  ::closedir(d);
  return true;
}

bool Spool::full() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_ >= max_bytes_;
}

bool Spool::put(const BatchHeader& h, const std::string& body, std::string* error) {
  std::string data = encodeHeader(h);
  data += '\n';
  data += body;
  if (!writeFileAtomic(pathOf(h.id), data, error)) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sizes_[h.id] = data.size();
    created_[h.id] = h.created_unix_ms;
    bytes_ += data.size();
  }
  cv_.notify_all();
  return true;
}

bool Spool::oldest(BatchHeader* h, std::string* body, int timeout_ms, std::string* error) {
  uint64_t id = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (sizes_.empty()) cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms));
    if (sizes_.empty()) return false;
    id = sizes_.begin()->first;
  }
  std::string data;
  std::string path = pathOf(id);
  if (!readWholeFile(path, &data, error)) {
    reject(id);
    return false;
  }
  size_t nl = data.find('\n');
  if (nl == std::string::npos || !decodeHeader(std::string_view(data).substr(0, nl), h, error)) {
    if (nl == std::string::npos)
      *error = path + ": no header line";
    else
      *error = path + ": " + *error;
    reject(id);
    return false;
  }
  h->id = id;
  body->assign(data, nl + 1, std::string::npos);
  return true;
}

void Spool::remove(uint64_t id) {
  ::unlink(pathOf(id).c_str());
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sizes_.find(id);
  if (it == sizes_.end()) return;
  bytes_ -= it->second;
  sizes_.erase(it);
  created_.erase(id);
}

void Spool::reject(uint64_t id) {
  std::string error;
  if (makeDirs(dir_ + "/rejected", &error)) {
    std::string from = pathOf(id);
    std::string to = dir_ + "/rejected/" + from.substr(from.rfind('/') + 1);
    ::rename(from.c_str(), to.c_str());
  }
  remove(id);
}

uint64_t Spool::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

uint64_t Spool::count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sizes_.size();
}

int64_t Spool::oldestCreatedMs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return created_.empty() ? 0 : created_.begin()->second;
}

void Spool::wake() {
  cv_.notify_all();
}

}  // namespace gpufl::agent
