#include "log/record_parser.hpp"

#include <gtest/gtest.h>

#include "log/decode_test_util.hpp"

namespace gpufl::log {
namespace {

using testing::decode;
using testing::hasWarning;
using testing::kernelAbs;
using testing::kernelDelta;
using testing::kFile;

TEST(RecordDecoder, KernelDeltasIncludingNegativeDifferences) {
  const auto d = decode(kernelAbs(1, 1000, 50, 10) + kernelDelta(2, 500, 1, 20) +
                        kernelDelta(1, -300, -1, 5) + kernelDelta(3, 0, 2, 0));
  EXPECT_EQ(d->all(), "");
  ASSERT_EQ(d->v.kernels.size(), 4u);
  const auto& k = d->v.kernels;
  EXPECT_EQ(k[0].start_ns, 1000);
  EXPECT_EQ(k[0].end_ns, 1010);
  EXPECT_EQ(k[0].correlation_id, 50u);
  EXPECT_EQ(k[1].start_ns, 1500);
  EXPECT_EQ(k[1].end_ns, 1520);
  EXPECT_EQ(k[1].correlation_id, 51u);
  EXPECT_EQ(k[2].start_ns, 1200);
  EXPECT_EQ(k[2].correlation_id, 50u);
  EXPECT_EQ(k[2].def_id, 1u);
  EXPECT_EQ(k[3].start_ns, 1200);
  EXPECT_EQ(k[3].end_ns, 1200);
  EXPECT_EQ(k[3].correlation_id, 52u);
  EXPECT_EQ(k[3].stream, 7u);
  EXPECT_EQ(k[3].sid, "abcd1234");
}

TEST(RecordDecoder, OtherSessionsDoNotMoveTheChain) {
  const auto d = decode(kernelAbs(1, 1000, 50, 10) + kernelAbs(1, 99999, 7, 1, "ffff0000") +
                        kernelDelta(1, 5, 1, 1, "ffff0000") + kernelDelta(2, 100, 1, 1));
  EXPECT_EQ(d->all(), "");
  ASSERT_EQ(d->v.kernels.size(), 2u);
  EXPECT_EQ(d->v.kernels[1].start_ns, 1100);
  EXPECT_EQ(d->v.kernels[1].correlation_id, 51u);
}

TEST(RecordDecoder, GarbageBreaksTheChainUntilTheNextAbsoluteRecord) {
  const auto d =
      decode(kernelAbs(1, 1000, 50, 10) + "garbage\n" + kernelDelta(1, 10, 1, 1) +
             kernelDelta(1, 10, 1, 1) + kernelAbs(1, 5000, 60, 10) + kernelDelta(1, 10, 1, 1));
  ASSERT_EQ(d->v.kernels.size(), 3u) << d->all();
  EXPECT_EQ(d->v.kernels[2].start_ns, 5010);
  EXPECT_EQ(d->v.kernels[2].correlation_id, 61u);
  ASSERT_EQ(d->warnings.size(), 2u) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 2, "not a JSON object")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 3, "2 kernel events skipped until resync at line 5"))
      << d->all();
}

TEST(RecordDecoder, TwoRecordsMergedOnOneLineAreGarbage) {
  std::string merged = kernelDelta(1, 10, 1, 1);
  merged.pop_back();  // a torn write: the next record continues the line
  const auto d = decode(kernelAbs(1, 1000, 50, 10) + merged + kernelDelta(1, 10, 1, 1) +
                        kernelDelta(1, 10, 1, 1));
  EXPECT_EQ(d->v.kernels.size(), 1u);
  EXPECT_EQ(d->all(),
            "t.device.log:2: kernel_event: invalid JSON (Unexpected trailing content in the JSON "
            "input.)\n"
            "t.device.log:3: kernel_event: 1 kernel events skipped until resync (no resync before "
            "the end "
            "of the file)\n");
}

TEST(RecordDecoder, DeltaWithoutAnyAbsoluteIsSkippedAndReportedAtEndOfFile) {
  const auto d =
      decode(kernelDelta(1, 10, 1, 1) + kernelDelta(1, 10, 1, 1) + kernelDelta(1, 10, 1, 1));
  EXPECT_TRUE(d->v.kernels.empty());
  ASSERT_EQ(d->warnings.size(), 1u) << d->all();
  EXPECT_EQ(testing::allWarnings(d->warnings),
            "t.device.log:1: kernel_event: 3 kernel events skipped until resync (no resync before "
            "the end "
            "of the file)\n");
}

TEST(RecordDecoder, TooLongLineBreaksTheChain) {
  const auto d =
      decode(kernelAbs(1, 1000, 50, 10) + std::string(300, ' ') + "{}\n" + kernelDelta(1, 10, 1, 1),
             "abcd1234", 200);
  EXPECT_EQ(d->v.kernels.size(), 1u);
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 2, "too long")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 3, "1 kernel events skipped until resync"))
      << d->all();
}

TEST(RecordDecoder, KernelFieldErrorsNameTheFieldAndKeepTheChainWhenThePositionIsGood) {
  const auto d =
      decode(kernelAbs(1, 1000, 50, 10) +
             R"({"type":"kernel_event","sid":"abcd1234","k":1,"dt_ns":10,"dcorr":1})"
             "\n" +
             R"({"type":"kernel_event","sid":"abcd1234","k":"x","dur_ns":1,"dt_ns":10,"dcorr":1})"
             "\n" +
             kernelDelta(4, 10, 1, 1) +
             R"({"type":"kernel_event","sid":"abcd1234","k":1,"dur_ns":1,"dt_ns":10})"
             "\n" +
             kernelDelta(5, 10, 1, 1));
  ASSERT_EQ(d->v.kernels.size(), 2u) << d->all();
  EXPECT_EQ(d->v.kernels[1].def_id, 4u);
  EXPECT_EQ(d->v.kernels[1].start_ns, 1030);
  EXPECT_EQ(testing::allWarnings(d->warnings),
            "t.device.log:2: kernel_event: field 'dur_ns' missing\n"
            "t.device.log:3: kernel_event: field 'k' not a number\n"
            "t.device.log:5: kernel_event: field 'dcorr' missing\n"
            "t.device.log:6: kernel_event: 1 kernel events skipped until resync (no resync before "
            "the end "
            "of the file)\n");
}

TEST(RecordDecoder, FieldTypeMessages) {
  const auto d = decode(
      R"({"type":"scope_end","sid":"abcd1234","id":1.5,"p":1,"ts_ns":1})"
      "\n"
      R"({"type":"scope_end","sid":"abcd1234","id":-1,"p":1,"ts_ns":1})"
      "\n"
      R"({"type":"scope_end","sid":"abcd1234","id":1,"p":99999999999,"ts_ns":1})"
      "\n"
      R"({"type":"note","sid":"abcd1234","feature":3,"status":"on"})"
      "\n"
      R"j({"type":"kernel_def","sid":"abcd1234","k":1,"name":"f","grid":"(1,2)"})j"
      "\n"
      R"({"type":"scope_end","id":1,"p":1,"ts_ns":1})"
      "\n"
      R"({"type":"kernel_event","sid":"abcd1234","k":1,"dur_ns":1,"start_ns":1,"corr":1,"instr":1})"
      "\n"
      R"({"type":"stack","sid":"abcd1234","id":1,"frames":[1]})"
      "\n"
      R"({"type":"session_start","sid":"abcd1234","session_id":"abcd1234-x","start_ns":1,"start_unix_ns":1,"devices":[{"id":0,"sm_count":"many"}]})"
      "\n");
  EXPECT_EQ(testing::allWarnings(d->warnings),
            "t.device.log:1: scope_end: field 'id' not an integer\n"
            "t.device.log:2: scope_end: field 'id' is negative\n"
            "t.device.log:3: scope_end: field 'p' out of range\n"
            "t.device.log:4: note: field 'feature' not a string\n"
            "t.device.log:5: kernel_def: field 'grid' not a \"(x,y,z)\" size\n"
            "t.device.log:6: scope_end: field 'sid' missing\n"
            "t.device.log:7: kernel_event: field 'instr' not a boolean\n"
            "t.device.log:8: stack: field 'frames' not an array of strings\n"
            "t.device.log:9: session_start: field 'devices.sm_count' not a number\n");
  EXPECT_EQ(d->delivered, 0u);
}

TEST(RecordDecoder, BadLines) {
  const auto d = decode(
      "not json\n"
      "[1,2]\n"
      R"({"sid":"abcd1234"})"
      "\n"
      R"({"type":7,"sid":"abcd1234"})"
      "\n"
      R"({"type":"note","sid":"abcd1234","feature":"f","status":"on"} trailing)"
      "\n"
      "\xff\xfe\n"
      "   \n"
      R"({"type":"note","sid":"abcd1234","feature":"f","status":"on"})"
      "\n"
      R"({"type":"note","sid":"abcd1234","feat)");
  EXPECT_EQ(d->v.notes.size(), 1u);
  EXPECT_EQ(
      d->all(),
      "t.device.log:1: not a JSON object\n"
      "t.device.log:2: not a JSON object\n"
      "t.device.log:3: record has no 'type' field\n"
      "t.device.log:4: field 'type' not a string\n"
      "t.device.log:5: invalid JSON (JSON document ended early in the middle of an object or "
      "array.)\n"
      "t.device.log:6: invalid JSON (The input is not valid UTF-8)\n"
      "t.device.log:9: truncated last line (no newline): invalid JSON (A string is opened, but "
      "never closed.)\n");
}

TEST(RecordDecoder, CompleteLastLineWithoutNewlineIsDelivered) {
  const auto d = decode(R"({"type":"note","sid":"abcd1234","feature":"f","status":"on"})");
  EXPECT_EQ(d->all(), "");
  EXPECT_EQ(d->v.notes.size(), 1u);
}

TEST(RecordDecoder, UnknownTypesAndFieldsAreSkippedSilently) {
  const auto d = decode(
      R"({"type":"future_thing","sid":"abcd1234","x":{"deep":[1,2,{"a":null}]}})"
      "\n"
      R"({"type":"note","sid":"abcd1234","new_field":[1,{"z":2}],"feature":"f","status":"on","more":"x"})"
      "\n"
      R"({"sid":"abcd1234","feature":"g","type":"note","status":"off"})"
      "\n");
  EXPECT_EQ(d->all(), "");
  ASSERT_EQ(d->v.notes.size(), 2u);
  EXPECT_EQ(d->v.notes[1].feature, "g");
}

TEST(RecordDecoder, OtherSessionsAreDroppedSilentlyEvenWhenBroken) {
  const auto d = decode(R"({"type":"note","sid":"ffff0000","feature":"f","status":"on"})"
                        "\n"
                        R"({"type":"note","sid":"ffff0000","feature":7})"
                        "\n");
  EXPECT_EQ(d->all(), "");
  EXPECT_TRUE(d->v.notes.empty());
}

TEST(RecordDecoder, NullNumbersReadAsAbsent) {
  const auto d = decode(
      R"({"type":"host_sample","sid":"abcd1234","ts_ns":5,"cpu_pct":null,"ram_used_bytes":3})"
      "\n"
      R"({"type":"range_counters","sid":"abcd1234","range":"r","metrics":{"a":1.5,"b":null}})"
      "\n");
  EXPECT_EQ(d->all(), "");
  ASSERT_EQ(d->v.host_samples.size(), 1u);
  EXPECT_FALSE(d->v.host_samples[0].cpu_pct);
  EXPECT_EQ(d->v.host_samples[0].ram_used_bytes, 3u);
  ASSERT_EQ(d->v.ranges.size(), 1u);
  EXPECT_EQ(d->v.ranges[0].metrics, (std::map<std::string, double>{{"a", 1.5}}));
}

}  // namespace
}  // namespace gpufl::log
