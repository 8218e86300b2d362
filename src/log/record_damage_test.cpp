// RecordDecoder on damaged input: byte-order marks, duplicate keys, lost lines inside a kernel
// delta chain.
#include <gtest/gtest.h>

#include "log/decode_test_util.hpp"

namespace gpufl::log {
namespace {

using testing::decode;
using testing::hasWarning;
using testing::kernelAbs;
using testing::kernelDelta;
using testing::kFile;

const std::string kNote =
    R"({"type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on"})"
    "\n";

TEST(RecordDamage, ByteOrderMarkOnTheFirstLineIsSkipped) {
  const auto d = decode("\xEF\xBB\xBF" + kNote + kNote);
  EXPECT_EQ(d->all(), "");
  EXPECT_EQ(d->v.notes.size(), 2u);
}

TEST(RecordDamage, ByteOrderMarkElsewhereIsGarbage) {
  const auto d = decode(kNote + "\xEF\xBB\xBF" + kNote);
  EXPECT_EQ(d->v.notes.size(), 1u);
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 2, "not a JSON object")) << d->all();
}

// A repeated key makes the record ambiguous: which value did the writer mean? The line is skipped
// with a warning, whichever key it is (a second sid used to make the record vanish as another
// session's).
TEST(RecordDamage, DuplicateKeysAreWarnedWithFileAndLine) {
  const auto d = decode(
      kNote +
      R"({"type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on","feature":"g"})"
      "\n"
      R"({"type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on","sid":"ffff0000"})"
      "\n"
      R"({"type":"note","type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on"})"
      "\n" +
      kernelAbs(1, 1000, 50, 10) +
      R"({"type":"kernel_event","sid":"abcd1234","k":1,"k":2,"stream":7,"scope":0,"dur_ns":1,"dt_ns":1,"dcorr":1})"
      "\n" +
      kNote);
  EXPECT_EQ(d->v.notes.size(), 2u);
  EXPECT_EQ(d->v.kernels.size(), 1u);
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 2, "note: duplicate key 'feature'")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 3, "note: duplicate key 'sid'")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 4, "note: duplicate key 'type'")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 6, "kernel_event: duplicate key 'k'")) << d->all();
}

std::string anchor(int64_t start, uint64_t corr, int64_t dt, int64_t dcorr) {
  return R"({"type":"kernel_event","sid":"abcd1234","k":9,"stream":7,"scope":0,"dur_ns":3,"dcorr":)" +
         std::to_string(dcorr) + R"(,"dt_ns":)" + std::to_string(dt) + R"(,"corr":)" +
         std::to_string(corr) + R"(,"start_ns":)" + std::to_string(start) + "}\n";
}
std::string chainEnd(int64_t start, uint64_t corr) {
  return R"({"type":"kernel_chain","sid":"abcd1234","corr":)" + std::to_string(corr) +
         R"(,"start_ns":)" + std::to_string(start) + "}\n";
}

// After a lost line, kernels wait for the next resync point; its differences place them walking
// backwards. A record with a field error is not delivered but still carries its difference.
TEST(RecordDamage, ResyncPointWithDifferencesPlacesTheKernelsAfterALostLine) {
  const auto d =
      decode(kernelAbs(1, 1000, 50, 10) + kernelDelta(1, 10, 1, 1) + "garbage\n" +
             kernelDelta(2, 30, 2, 4) +
             R"({"type":"kernel_event","sid":"abcd1234","k":"x","dur_ns":1,"dt_ns":-5,"dcorr":1})"
             "\n" +
             kernelDelta(3, 20, 1, 6) + anchor(2000, 90, 100, 10) + kernelDelta(4, 1, 1, 1));
  ASSERT_EQ(d->v.kernels.size(), 6u) << d->all();
  const auto& k = d->v.kernels;
  // The anchor (2000, 90) is 100 ns and 10 ids after kernel 3: 1900 / 80, then 1880 / 79 back over
  // the bad record, 1885 / 78 for kernel 2.
  EXPECT_EQ(k[2].def_id, 2u);
  EXPECT_EQ(k[2].start_ns, 1885);
  EXPECT_EQ(k[2].end_ns, 1889);
  EXPECT_EQ(k[2].correlation_id, 78u);
  EXPECT_EQ(k[3].def_id, 3u);
  EXPECT_EQ(k[3].start_ns, 1900);
  EXPECT_EQ(k[3].correlation_id, 80u);
  EXPECT_EQ(k[4].start_ns, 2000);
  EXPECT_EQ(k[5].start_ns, 2001);
  EXPECT_EQ(d->all(),
            "t.device.log:3: not a JSON object\n"
            "t.device.log:5: kernel_event: field 'k' not a number\n");
}

TEST(RecordDamage, KernelChainRecordPlacesTheKernelsAtTheEndOfAFile) {
  const auto d = decode(kernelAbs(1, 1000, 50, 10) + "garbage\n" + kernelDelta(2, 30, 2, 4) +
                        kernelDelta(3, 20, 1, 6) + chainEnd(500, 7));
  ASSERT_EQ(d->v.kernels.size(), 3u) << d->all();
  EXPECT_EQ(d->v.kernels[1].start_ns, 480);
  EXPECT_EQ(d->v.kernels[1].correlation_id, 6u);
  EXPECT_EQ(d->v.kernels[2].start_ns, 500);
  EXPECT_EQ(d->v.kernels[2].end_ns, 506);
  EXPECT_EQ(d->v.kernels[2].correlation_id, 7u);
  EXPECT_EQ(d->delivered, 3u);  // the chain record itself is not an event
  EXPECT_EQ(d->all(), "t.device.log:2: not a JSON object\n");
}

TEST(RecordDamage, KernelsBetweenTwoLostLinesAreSkipped) {
  const auto d = decode(kernelAbs(1, 1000, 50, 10) + "garbage\n" + kernelDelta(2, 30, 2, 4) +
                        "garbage\n" + kernelDelta(3, 20, 1, 6) + chainEnd(500, 7));
  ASSERT_EQ(d->v.kernels.size(), 2u) << d->all();
  EXPECT_EQ(d->v.kernels[1].start_ns, 500);
  EXPECT_EQ(d->all(),
            "t.device.log:2: not a JSON object\n"
            "t.device.log:4: not a JSON object\n"
            "t.device.log:3: kernel_event: 1 kernel events skipped between lost lines 2 and 4 (no "
            "resync point between them)\n");
}

}  // namespace
}  // namespace gpufl::log
