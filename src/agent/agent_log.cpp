#include "agent/agent_log.hpp"

#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>

namespace gpufl::agent {
namespace {

std::mutex g_mu;

void emit(const char* level, const std::string& message) {
  char stamp[32];
  std::time_t t = std::time(nullptr);
  struct tm tm {};
  gmtime_r(&t, &tm);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::fprintf(stderr, "%s gpufl agent %s: %s\n", stamp, level, message.c_str());
}

}  // namespace

void logInfo(const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mu);
  emit("info", message);
}

void logWarning(const std::string& kind, const std::string& message) {
  static std::map<std::string, unsigned long long> seen;
  std::lock_guard<std::mutex> lock(g_mu);
  unsigned long long n = ++seen[kind];
  if (n <= 20 || n % 1000 == 0)
    emit("warning", message + (n == 20 ? " (further '" + kind + "' warnings: every 1000th)" : ""));
}

}  // namespace gpufl::agent
