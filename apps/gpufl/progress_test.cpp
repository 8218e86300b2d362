#include "progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gpufl::cli {
namespace {

using Clock = Progress::Clock;

TEST(Progress, SilentForTheFirstTwoSeconds) {
  std::ostringstream err;
  const Clock::time_point t0{};
  {
    Progress p(err, true, "gpufl report: reading run", t0);
    p.update(65536, t0 + std::chrono::milliseconds(1900));
    EXPECT_FALSE(p.shown());
  }
  EXPECT_EQ(err.str(), "");
}

TEST(Progress, OneLineRewrittenInPlaceThenCleared) {
  std::ostringstream err;
  const Clock::time_point t0{};
  {
    Progress p(err, true, "gpufl report: reading run", t0);
    p.update(1234567, t0 + std::chrono::seconds(3));
    EXPECT_EQ(err.str(), "\rgpufl report: reading run: 1,234,567 records, 3 s");
    p.update(2000000, t0 + std::chrono::seconds(4));
    p.done();
    p.update(3000000, t0 + std::chrono::seconds(5));  // after done(): nothing
  }
  const std::string s = err.str();
  EXPECT_NE(s.find("\rgpufl report: reading run: 2,000,000 records, 4 s"), std::string::npos) << s;
  EXPECT_EQ(s.find('\n'), std::string::npos) << "progress never adds lines";
  EXPECT_EQ(s.back(), '\r') << "the line is blanked at the end";
  EXPECT_EQ(s.find("3,000,000"), std::string::npos) << s;
}

TEST(Progress, NothingWhenStderrIsNoTerminal) {
  std::ostringstream err;
  const Clock::time_point t0{};
  {
    Progress p(err, false, "gpufl cat: reading run", t0);
    p.update(1 << 20, t0 + std::chrono::seconds(30));
  }
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace gpufl::cli
