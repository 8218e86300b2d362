// The generic JSON writer over field tables (model_json.hpp): each kind of row and of value.
#include "report/json/model_json.hpp"

#include <gtest/gtest.h>

#include "report/model/report_model.hpp"

namespace gpufl::report {
namespace {

struct Inner {
  int n = 0;
};
inline bool jsonNull(const Inner& i) {
  return i.n < 0;
}

struct Sample {
  uint32_t count = 0;
  double ratio = 0;
  std::string label;
  std::optional<int> maybe;
  std::vector<std::string> tags;
  std::map<std::string, double> metrics;
  Inner inner;
  Inner gone{-1};
  Dim3 shape{};
  LimitingResource limit = LimitingResource::None;
  bool flag = false;
};

// clang-format off
#define GFL_REPORT_JSON_Inner(F, K, N, L) F(n, kPlain)
#define GFL_REPORT_JSON_Sample(F, K, N, L)                                                         \
  F(count, kPlain) F(ratio, kDec2) K("name", v.label, kPlain) F(maybe, kPlain)                     \
  F(tags, kOmitEmpty) F(metrics, kDec1) F(inner, kPlain) N(inner, n, kPlain) F(gone, kPlain)       \
  F(shape, kPlain) F(limit, kPlain) K("twice", 2 * v.count, kPlain) F(flag, kOmitEmpty)
// clang-format on
GFL_REPORT_JSON_FIELDS(Inner)
GFL_REPORT_JSON_FIELDS(Sample)

std::string write(const Sample& s) {
  JsonWriter w;
  json::value(w, s, json::kPlain, Report{});
  return w.take();
}

TEST(ModelJson, EveryRowAndValueKind) {
  Sample s;
  s.count = 3;
  s.ratio = 2.0 / 3;
  s.label = "a\"b";
  s.metrics = {{"x.sum", 1.26}, {"y", 0.04}};
  s.inner.n = 7;
  s.shape = {2, 1, 1};
  s.limit = LimitingResource::SharedMem;
  EXPECT_EQ(write(s),
            "{\n  \"count\": 3,\n  \"ratio\": 0.67,\n  \"name\": \"a\\\"b\",\n  \"maybe\": null,\n"
            "  \"metrics\": {\n    \"x.sum\": 1.3,\n    \"y\": 0\n  },\n"
            "  \"inner\": {\n    \"n\": 7\n  },\n  \"n\": 7,\n  \"gone\": null,\n"
            "  \"shape\": \"(2,1,1)\",\n  \"limit\": \"shared_mem\",\n  \"twice\": 6\n}\n");
}

TEST(ModelJson, OmitEmptyWritesTheKeyOnceThereIsAValue) {
  Sample s;
  s.maybe = 5;
  s.tags = {"t"};
  s.flag = true;
  const std::string json = write(s);
  EXPECT_NE(json.find("\"maybe\": 5,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"tags\": [\n    \"t\"\n  ],"), std::string::npos) << json;
  EXPECT_NE(json.find("\"flag\": true\n}"), std::string::npos) << json;
}

}  // namespace
}  // namespace gpufl::report
