// RecordDecoder on damaged input: byte-order marks, duplicate keys, lost lines inside a kernel delta chain.
#include <gtest/gtest.h>

#include "log/decode_test_util.hpp"

namespace gpufl::log {
namespace {

using testing::decode;
using testing::hasWarning;
using testing::kernelAbs;
using testing::kernelDelta;
using testing::kFile;

const std::string kNote = R"({"type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on"})" "\n";

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

// A repeated key makes the record ambiguous: which value did the writer mean? The line is skipped with a
// warning, whichever key it is (a second sid used to make the record vanish as another session's).
TEST(RecordDamage, DuplicateKeysAreWarnedWithFileAndLine) {
  const auto d = decode(
      kNote +
      R"({"type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on","feature":"g"})" "\n"
      R"({"type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on","sid":"ffff0000"})" "\n"
      R"({"type":"note","type":"note","sid":"abcd1234","ts_ns":1,"feature":"f","status":"on"})" "\n" +
      kernelAbs(1, 1000, 50, 10) +
      R"({"type":"kernel_event","sid":"abcd1234","k":1,"k":2,"stream":7,"scope":0,"dur_ns":1,"dt_ns":1,"dcorr":1})" "\n" +
      kNote);
  EXPECT_EQ(d->v.notes.size(), 2u);
  EXPECT_EQ(d->v.kernels.size(), 1u);
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 2, "note: duplicate key 'feature'")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 3, "note: duplicate key 'sid'")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 4, "note: duplicate key 'type'")) << d->all();
  EXPECT_TRUE(hasWarning(d->warnings, kFile, 6, "kernel_event: duplicate key 'k'")) << d->all();
}

}  // namespace
}  // namespace gpufl::log
