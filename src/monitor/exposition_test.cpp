#include "monitor/exposition.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpufl::monitor {
namespace {

TEST(Exposition, FamiliesWithHelpTypeAndLabelledSamples) {
  Exposition e;
  e.family("a_bytes", MetricType::Gauge, "Bytes of a");
  e.sample({{"gpu", "0"}, {"name", "NVIDIA H200"}}, 1024);
  e.sample({}, 0.5);
  e.family("b_total", MetricType::Counter, "Count of b");
  e.sample({}, 3);
  EXPECT_EQ(e.text(),
            "# HELP a_bytes Bytes of a\n"
            "# TYPE a_bytes gauge\n"
            "a_bytes{gpu=\"0\",name=\"NVIDIA H200\"} 1024\n"
            "a_bytes 0.5\n"
            "# HELP b_total Count of b\n"
            "# TYPE b_total counter\n"
            "b_total 3\n");
}

TEST(Exposition, FamilyWithoutSamplesIsLeftOut) {
  Exposition e;
  e.family("empty", MetricType::Gauge, "nothing");
  e.family("full", MetricType::Gauge, "something");
  e.sample({}, 1);
  EXPECT_EQ(e.text(), "# HELP full something\n# TYPE full gauge\nfull 1\n");
}

TEST(Exposition, EscapesLabelValuesAndHelp) {
  Exposition e;
  e.family("x", MetricType::Gauge, "line\\one\nline two \"quoted\"");
  e.sample({{"reason", "a \"b\"\\c\nd"}}, 0);
  EXPECT_EQ(e.text(),
            "# HELP x line\\\\one\\nline two \"quoted\"\n"
            "# TYPE x gauge\n"
            "x{reason=\"a \\\"b\\\"\\\\c\\nd\"} 0\n");
}

TEST(Exposition, SameFamilyTwiceIsAProgrammingError) {
  Exposition e;
  e.family("x", MetricType::Gauge, "h");
  EXPECT_THROW(e.family("x", MetricType::Counter, "h"), std::logic_error);
}

TEST(Exposition, ValuesRoundTrip) {
  EXPECT_EQ(formatValue(0), "0");
  EXPECT_EQ(formatValue(150000000000.0), "150000000000");
  EXPECT_EQ(formatValue(-3), "-3");
  EXPECT_EQ(formatValue(0.87), "0.87");
  EXPECT_EQ(formatValue(0.03), "0.03");
  EXPECT_EQ(formatValue(456.789), "456.789");
  EXPECT_EQ(formatValue(1e300), "1e+300");
  EXPECT_EQ(formatValue(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(formatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(formatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(formatValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

}  // namespace
}  // namespace gpufl::monitor
