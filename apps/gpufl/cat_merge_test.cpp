#include "cat_merge.hpp"

#include <gtest/gtest.h>

namespace gpufl::cli {
namespace {

TEST(CatMerge, OrdersByTimeKeepingUntimedLinesInPlace) {
  const std::string in =
      R"j({"type":"session_start","sid":"a","start_ns":100,"devices":[{"id":0}]})j"
      "\n"
      R"j({"type":"kernel_def","sid":"a","k":1,"name":"_Z1kv","demangled":"k()"})j"
      "\n"
      R"j({"type":"kernel_event","sid":"a","dur_ns":5,"k":1,"start_ns":300,"end_ns":305})j"
      "\n"
      R"j({"type":"pc_sample","sid":"a","func":"_Z1kv","pc":0})j"
      "\n"
      R"j({"type":"session_end","sid":"a","end_ns":900})j"
      "\n"
      R"j({"type":"session_start","sid":"a","start_ns":100,"devices":[]})j"
      "\n"
      R"j({"type":"scope_path","sid":"a","p":1,"name":"s"})j"
      "\n"
      R"j({"type":"scope_begin","sid":"a","ts_ns":200,"p":1})j"
      "\n"
      R"j({"type":"scope_end","sid":"a","ts_ns":400,"p":1})j"
      "\n"
      R"j({"type":"session_end","sid":"a","end_ns":900})j"
      "\n";
  const std::string want =
      R"j({"type":"session_start","sid":"a","start_ns":100,"devices":[{"id":0}]})j"
      "\n"
      R"j({"type":"kernel_def","sid":"a","k":1,"name":"_Z1kv","demangled":"k()"})j"
      "\n"
      R"j({"type":"scope_path","sid":"a","p":1,"name":"s"})j"
      "\n"
      R"j({"type":"scope_begin","sid":"a","ts_ns":200,"p":1})j"
      "\n"
      R"j({"type":"kernel_event","sid":"a","dur_ns":5,"k":1,"start_ns":300,"end_ns":305})j"
      "\n"
      R"j({"type":"pc_sample","sid":"a","func":"_Z1kv","pc":0})j"
      "\n"
      R"j({"type":"scope_end","sid":"a","ts_ns":400,"p":1})j"
      "\n"
      R"j({"type":"session_end","sid":"a","end_ns":900})j"
      "\n";
  EXPECT_EQ(mergeByTime(in), want);
}

TEST(CatMerge, DifferentSessionEndsAreAllKept) {
  const std::string in = R"j({"type":"session_end","sid":"a","end_ns":900,"kernels":1})j"
                         "\n"
                         R"j({"type":"session_end","sid":"a","end_ns":900,"kernels":0})j"
                         "\n";
  EXPECT_EQ(mergeByTime(in), in);
}

TEST(CatMerge, KernelEventsGetTheirKernelsName) {
  const std::string in =
      R"j({"type":"kernel_def","sid":"a","k":7,"name":"_Z1kPc","demangled":"k(char*) \"q\""})j"
      "\n"
      R"j({"type":"kernel_event","sid":"a","dur_ns":5,"k":7,"start_ns":300})j"
      "\n"
      R"j({"type":"kernel_event","sid":"a","dur_ns":5,"k":8,"start_ns":301})j"
      "\n";
  const std::string out = nameKernelEvents(in);
  EXPECT_NE(out.find(R"j("k":7,"kernel":"k(char*) \"q\"","start_ns":300)j"), std::string::npos)
      << out;
  EXPECT_NE(out.find(R"j({"type":"kernel_event","sid":"a","dur_ns":5,"k":8,"start_ns":301})j"),
            std::string::npos)
      << out;  // no kernel_def: left as it was
}

}  // namespace
}  // namespace gpufl::cli
