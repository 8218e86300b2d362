// A session writing real files that stop accepting writes (RLIMIT_FSIZE, as a full disk): the loss
// is counted in session_end, noted in the log, and said once on stderr.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/scope_stack.hpp"
#include "log/writer_test_util.hpp"
#include "runtime/session.hpp"

namespace gpufl::runtime {
namespace {

using namespace std::chrono_literals;
using log::testing::FileSizeLimit;
using log::testing::readFile;

class SessionLogTest : public log::testing::WriterDirTest {
 protected:
  std::unique_ptr<Session> start() {
    SessionConfig c;
    c.options.app_name = "session_log_test";
    c.options.log_path = prefix_;
    c.period = 5ms;
    c.flush_period = 5ms;
    std::string error;
    auto s = Session::start(std::move(c), &error);
    EXPECT_TRUE(s) << error;
    return s;
  }
};

// Records scopes at a pace the thread buffer keeps up with.
void recordScopes(int n) {
  for (int i = 0; i < n; ++i) {
    core::scopeEnd(core::scopeBegin("session_log.step"));
    if (i % 200 == 0) std::this_thread::sleep_for(1ms);
  }
  std::this_thread::sleep_for(50ms);  // a few rounds write them
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

uint64_t writeDropped(const std::string& scope_log) {
  const size_t end = scope_log.rfind("{\"type\":\"session_end\"");
  const size_t at = end == std::string::npos ? end : scope_log.find("\"write\":", end);
  if (at == std::string::npos) return 0;
  return std::stoull(scope_log.substr(at + 8));
}

TEST_F(SessionLogTest, RecordsThatCannotBeWrittenAreCountedInSessionEnd) {
  auto s = start();
  ASSERT_TRUE(s);
  ::testing::internal::CaptureStderr();
  {
    FileSizeLimit limit(64 << 10);
    recordScopes(5000);  // about 1 MB of scope lines
  }
  s->stop();
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string scope = readFile(prefix_ + ".scope.log");
  const uint64_t lost = writeDropped(scope);
  EXPECT_GT(lost, 0u) << scope.substr(scope.size() > 400 ? scope.size() - 400 : 0);
  uint64_t written = 0;  // whole scope lines; a line cut at the limit is one of the lost
  for (const std::string& l : log::testing::lines(scope)) {
    if (!l.empty() && l.back() == '}' && (l.find("\"type\":\"scope_") != std::string::npos))
      ++written;
  }
  EXPECT_EQ(s->end().dropped.at("scope"), 0u);
  EXPECT_EQ(written + lost, 2 * s->end().scopes + 1);  // begins, ends and the one path
  EXPECT_EQ(count(err, "records that cannot be written are dropped"), 1u) << err;
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
  EXPECT_EQ(err.find("session_end is missing"), std::string::npos) << err;
  const std::string device = readFile(prefix_ + ".device.log");
  EXPECT_NE(device.find("\"feature\":\"log\",\"status\":\"degraded\""), std::string::npos);
}

// When session_end itself cannot be written, only stderr can tell.
TEST_F(SessionLogTest, ALostSessionEndIsSaidOnStderr) {
  auto s = start();
  ASSERT_TRUE(s);
  ::testing::internal::CaptureStderr();
  {
    FileSizeLimit limit(64 << 10);
    recordScopes(5000);
    s->stop();
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(err, "records that cannot be written are dropped"), 1u) << err;
  EXPECT_NE(err.find("session_end is missing or undercounts them"), std::string::npos) << err;
}

}  // namespace
}  // namespace gpufl::runtime
