// Progress on stderr for work that takes a while (reading a large session): one line, rewritten in
// place, only when stderr is a terminal and only after kProgressDelay, so quick commands and
// redirected output stay as they were. The line is cleared when the work ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace gpufl::cli {

inline constexpr std::chrono::milliseconds kProgressDelay{2000};

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  // `what`: "gpufl report: reading ./run". Shows nothing when !enabled.
  Progress(std::ostream& err, bool enabled, std::string what,
           Clock::time_point start = Clock::now());
  ~Progress() { done(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `records` read so far, at `now`; prints "<what>: 1,234,567 records, 3 s" once the delay passed.
  void update(uint64_t records, Clock::time_point now = Clock::now());
  bool shown() const { return shown_; }
  // Clears the line if one is shown; later updates show nothing.
  void done();

 private:
  std::ostream& err_;
  bool enabled_;
  std::string what_;
  Clock::time_point start_;
  bool shown_ = false;
  size_t width_ = 0;  // of the last line, to blank it
};

}  // namespace gpufl::cli
