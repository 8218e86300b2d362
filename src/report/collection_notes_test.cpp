// How records lost to write failures (session_end dropped.write) are shown: in the Dropped Records
// total and breakdown, and in a hint of their own (not the "buffers were full" one).
#include <gtest/gtest.h>

#include "report/aggregate/report_builder.hpp"
#include "report/report.hpp"

namespace gpufl::report {
namespace {

TEST(DroppedDisplay, RecordsThatCouldNotBeWrittenAreShownAndHinted) {
  ReportBuilder b;
  b.onSessionStart(SessionStart{});
  SessionEnd e;
  e.end_ns = 1000;
  e.dropped = {{"scope", 2}, {"launch", 0}, {"write", 9123}};
  b.onSessionEnd(e);
  Report r = b.build();
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed", .verbose = true});
  EXPECT_NE(text.find("  Dropped Records:      9,125 (9,123 could not be written to the log)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    write:              9,123\n"), std::string::npos) << text;
  // By default the total stays, the breakdown goes.
  std::string brief = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(brief.find("  Dropped Records:      9,125 (9,123 could not be written to the log)\n"),
            std::string::npos)
      << brief;
  EXPECT_EQ(brief.find("    write:"), std::string::npos) << brief;
  std::vector<std::string> kinds;
  for (const Hint& h : r.hints) kinds.push_back(h.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"dropped_write", "dropped"}));
  EXPECT_NE(r.hints[0].text.find("9,123 records could not be written to the log"),
            std::string::npos)
      << r.hints[0].text;
  EXPECT_NE(r.hints[1].text.find("2 records were dropped because gpufl's buffers were full"),
            std::string::npos)
      << r.hints[1].text;
}

TEST(DroppedDisplay, NoWriteFailureNoMention) {
  ReportBuilder b;
  b.onSessionStart(SessionStart{});
  SessionEnd e;
  e.dropped = {{"scope", 0}, {"write", 0}};
  b.onSessionEnd(e);
  Report r = b.build();
  std::string text = renderText(r, {.top_n = 10, .generated_at = "fixed"});
  EXPECT_NE(text.find("  Dropped Records:      none\n"), std::string::npos) << text;
  EXPECT_TRUE(r.hints.empty());
}

}  // namespace
}  // namespace gpufl::report
