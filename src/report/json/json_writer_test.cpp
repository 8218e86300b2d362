#include "report/json/json_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gpufl::report {
namespace {

TEST(JsonWriter, PrettyPrintsNestedContainers) {
  JsonWriter w;
  w.beginObject();
  w.field("a", 1);
  w.key("b").beginArray();
  w.value(uint64_t{2});
  w.value("x\"y\n");
  w.endArray();
  w.key("c").beginObject();
  w.endObject();
  w.key("d").beginArray();
  w.endArray();
  w.endObject();
  EXPECT_EQ(w.take(),
            "{\n  \"a\": 1,\n  \"b\": [\n    2,\n    \"x\\\"y\\n\"\n  ],\n  \"c\": {},\n  \"d\": "
            "[]\n}\n");
}

TEST(JsonWriter, NumbersAreRoundedAndTrimmed) {
  JsonWriter w;
  w.beginArray();
  w.value(97.15075376884423);
  w.value(2.0);
  w.value(-0.00001);
  w.value(1753000000.0, 1);
  w.value(std::nan(""));
  w.value(std::string_view("\x01"));
  w.endArray();
  EXPECT_EQ(w.take(), "[\n  97.1508,\n  2,\n  0,\n  1753000000,\n  null,\n  \"\\u0001\"\n]\n");
}

}  // namespace
}  // namespace gpufl::report
