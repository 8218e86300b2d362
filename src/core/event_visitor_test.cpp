#include "core/event_visitor.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/record_schema.hpp"

namespace gpufl {
namespace {

// Counts each handler by its record's type name.
#define GFL_COUNT_HANDLER_(T, type, channel, on) \
  void on(const T&) override {                   \
    ++seen[type];                                \
  }
struct Counting : EventVisitor {
  std::map<std::string, int> seen;
  GFL_RECORDS(GFL_COUNT_HANDLER_)
};
#undef GFL_COUNT_HANDLER_

TEST(ForwardingVisitor, ForwardsEveryEventType) {
  Counting sink;
  ForwardingVisitor forward(sink);
  size_t types = 0;
  schema::forEachRecordType([&]<typename T>() {
    visit(forward, T{});
    ++types;
  });
  EXPECT_EQ(types, 21u);
  EXPECT_EQ(sink.seen.size(), types);
  for (const auto& [name, count] : sink.seen) EXPECT_EQ(count, 1) << name;
}

TEST(EventVisitor, VisitCallsTheHandlerNamedInTheRecordList) {
  Counting sink;
  visit(sink, KernelEvent{});
  visit(sink, GpuSample{});
  visit(sink, GpuSample{});
  EXPECT_EQ(sink.seen["kernel_event"], 1);
  EXPECT_EQ(sink.seen["system_sample"], 2);
  EXPECT_EQ(sink.seen.size(), 2u);
}

}  // namespace
}  // namespace gpufl
