#include "progress.hpp"

#include <utility>

namespace gpufl::cli {
namespace {

std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

Progress::Progress(std::ostream& err, bool enabled, std::string what, Clock::time_point start)
    : err_(err), enabled_(enabled), what_(std::move(what)), start_(start) {}

void Progress::done() {
  if (shown_) err_ << '\r' << std::string(width_, ' ') << '\r' << std::flush;
  shown_ = false;
  enabled_ = false;
}

void Progress::update(uint64_t records, Clock::time_point now) {
  if (!enabled_ || now - start_ < kProgressDelay) return;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - start_).count();
  std::string line =
      what_ + ": " + grouped(records) + " records, " + std::to_string(seconds) + " s";
  const size_t pad = line.size() < width_ ? width_ - line.size() : 0;
  err_ << '\r' << line << std::string(pad, ' ') << std::flush;
  width_ = line.size();
  shown_ = true;
}

}  // namespace gpufl::cli
