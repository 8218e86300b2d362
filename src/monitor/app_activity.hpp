// Kernel activity of the profiled programs on this host, read from their logs (`gpufl monitor
// --apps DIR`): per session, the kernels that ran and the GPU time they took, by GPU. A fleet sees
// which program keeps a GPU busy next to NVML's counters, which cannot attribute activity to a
// process on a shared GPU.
//
// Every poll lists DIR's active device logs (`*.device.log`, regular files only: anything else is
// skipped without being opened, so a FIFO cannot block the sampler) and reads what was appended
// since the last poll, 64 MiB at most per poll (more waits for the next); a file whose inode
// changed (rotated: the writer renamed it to a numbered segment) is read from its start again. Only
// kernel_event's `k`, `dur_ns` and `sid`, the records that name them (session_start, device,
// kernel_def, session_end) and the latest `health` record's counters are read, so the differences
// that chain kernel starts do not matter here. Known limits: lines written between the last poll
// and a rotation are not counted; sessions whose end was already in the log when first seen are not
// shown (finished before the monitor looked).
//
// [sampler thread]: poll() and series() run on one thread.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpufl::monitor {

struct AppSeries {
  std::string app;
  int64_t pid = 0;
  std::string sid;   // the session's short id
  std::string uuid;  // the GPU ("" when the log does not name the kernel's device)
  uint64_t kernels = 0;
  uint64_t kernel_ns = 0;  // summed durations: concurrent kernels add up, so the rate may exceed 1
};

// The latest health record of a session (docs/trace-health.md): gpufl's own cost and what its
// checks of the records found, as counters since the session began.
struct AppHealth {
  std::string app;
  int64_t pid = 0;
  std::string sid;
  std::map<std::string, uint64_t> cpu_ns;      // by thread role
  std::map<std::string, uint64_t> dropped;     // by source
  std::map<std::string, uint64_t> violations;  // by check
  uint64_t records = 0, checked = 0;
  uint64_t rss_bytes = 0, buffer_bytes = 0;
  bool has_clock = false;
  int64_t clock_drift_ns = 0;
  uint64_t step_downs = 0;  // what gpufl gave up to stay within the user's limits
};

class AppActivity {
 public:
  // `ended_keep_ns`: how long a session stays shown after its session_end was read (so that
  // Prometheus scrapes its final counts). Files are read `chunk_bytes` at a time, which bounds
  // memory whatever their size.
  explicit AppActivity(std::vector<std::string> dirs, int64_t ended_keep_ns = 60'000'000'000,
                       size_t chunk_bytes = 4u << 20);
  ~AppActivity();

  void poll(int64_t now_ns);
  std::vector<AppSeries> series() const;
  // The sessions shown whose logs carry health records, each with its latest.
  std::vector<AppHealth> health() const;
  // Problems since the previous call (a directory that cannot be listed, a file that cannot be
  // read), each once until it clears.
  std::vector<std::string> takeIssues();

 private:
  struct Session;
  struct File;
  void readFile(const std::string& path, File& f, int64_t now_ns);
  void line(std::string_view text, size_t capacity, int64_t now_ns, bool first_read);
  void issue(const std::string& key, const std::string& text);

  std::vector<std::string> dirs_;
  int64_t ended_keep_ns_;
  size_t chunk_bytes_;
  uint64_t budget_ = 0;                                       // bytes left to read in this poll
  std::map<std::string, File> files_;                         // by path
  std::map<std::string, std::unique_ptr<Session>> sessions_;  // by sid
  std::map<std::string, bool> issue_open_;                    // key -> reported and not yet cleared
  std::vector<std::string> new_issues_;
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace gpufl::monitor
