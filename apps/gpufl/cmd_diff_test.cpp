// `gpufl diff` end to end: real H200 fixtures against themselves, hand-written sessions with a
// planted regression (two prefixes, and two sessions under one prefix), exit codes and argument
// errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "cli_test_util.hpp"

namespace gpufl::cli {
namespace {

using testing::runCaptured;
namespace fs = std::filesystem;

// A session of `launches` launches of one kernel of ~100 us (1% jitter) times `factor`, appended to
// the files.
void writeSession(const std::string& prefix, const std::string& sid, uint64_t seed, double factor,
                  int launches = 60) {
  std::ofstream dev(prefix + ".device.log", std::ios::app),
      scope(prefix + ".scope.log", std::ios::app);
  const std::string start = R"({"type":"session_start","sid":")" + sid + R"(","session_id":")" +
                            sid + R"(-0000-0000","start_ns":)" + std::to_string(seed * 1000000000) +
                            R"(,"start_unix_ns":1})";
  dev << start << "\n";
  scope << start << "\n";
  dev << R"({"type":"kernel_def","sid":")" << sid
      << R"j(","k":1,"name":"gemm","grid":"(64,1,1)","block":"(256,1,1)"})j"
      << "\n";
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> jitter(0, 0.01);
  int64_t t = static_cast<int64_t>(seed) * 1000000000 + 1000;
  for (int i = 0; i < launches; ++i) {
    const auto dur = static_cast<int64_t>(100000 * factor * (1 + jitter(rng)));
    dev << R"({"type":"kernel_event","sid":")" << sid << R"(","k":1,"corr":)" << i + 1
        << R"(,"start_ns":)" << t << R"(,"dur_ns":)" << dur << "}\n";
    t += dur + 5000;
  }
}

fs::path freshDir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("gpufl_diff_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(CliDiff, RealSessionsAgainstThemselvesPass) {
  for (const char* name :
       {"pytorch_train_trace", "matmul_tiling", "kernel_zoo_trace", "occupancy_reduction"}) {
    const std::string prefix = std::string(GPUFL_H200_DATA_DIR) + "/" + name;
    const auto r = runCaptured({"diff", prefix, prefix, "--threshold", "5%"});
    EXPECT_EQ(r.code, kExitOk) << name << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("gate: pass"), std::string::npos) << r.out;
  }
}

TEST(CliDiff, APlantedRegressionFailsWithExit3AndJsonSaysWhy) {
  const fs::path d = freshDir("planted");
  writeSession((d / "base").string(), "aaaa0001", 1, 1.0);
  writeSession((d / "same").string(), "aaaa0002", 2, 1.0);
  writeSession((d / "slow").string(), "aaaa0003", 3, 1.10);
  auto r = runCaptured({"diff", (d / "base").string(), (d / "same").string()});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  r = runCaptured({"diff", (d / "base").string(), (d / "slow").string(), "--threshold", "5%"});
  EXPECT_EQ(r.code, kExitRegression) << r.out << r.err;
  EXPECT_NE(r.out.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gate: FAIL: 1 real regression past 5.0%"), std::string::npos) << r.out;
  r = runCaptured(
      {"diff", (d / "base").string(), (d / "slow").string(), "--threshold", "15%", "--json"});
  EXPECT_EQ(r.code, kExitOk) << r.out;  // real, but under 15%
  EXPECT_NE(r.out.find("\"verdict\": \"slower\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"pass\": true"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(CliDiff, TwoSessionsUnderOnePrefix) {
  const fs::path d = freshDir("one_prefix");
  const std::string prefix = (d / "runs").string();
  writeSession(prefix, "bbbb0001", 1, 1.0);
  writeSession(prefix, "bbbb0002", 2, 1.25);
  auto r = runCaptured({"diff", prefix, "--base-session", "bbbb0001", "--new-session", "bbbb0002"});
  EXPECT_EQ(r.code, kExitRegression) << r.out << r.err;
  EXPECT_NE(r.out.find("REGRESSED  +2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<<<64,256>>>  gemm"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("kernel_def"), std::string::npos)
      << r.err;  // the hand-written records all read
  r = runCaptured({"diff", prefix});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("--base-session"), std::string::npos) << r.err;
  fs::remove_all(d);
}

std::string textOf(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The real H200 session whose 9,934 kernels are all in one kernel_block, copied with that block's
// data damaged (one byte), or with one garbage line added.
std::string damagedCopy(const fs::path& dir, const std::string& name, bool block, bool garbage) {
  const std::string fixture = std::string(GPUFL_H200_DATA_DIR) + "/pytorch_blocks";
  std::string device = textOf(fixture + ".device.log");
  if (block) {
    const size_t data = device.find("\"data\":\"", device.find("\"type\":\"kernel_block\""));
    device[data + 20] = device[data + 20] == 'A' ? 'B' : 'A';
  }
  if (garbage) device.insert(device.find('\n') + 1, "{\"type\":\"note\",\"sid\n");
  const std::string prefix = (dir / name).string();
  std::ofstream(prefix + ".device.log", std::ios::binary) << device;
  for (const char* channel : {".scope.log", ".system.log"})
    std::ofstream(prefix + channel, std::ios::binary) << textOf(fixture + channel);
  return prefix;
}

// The issue's case: every kernel of NEW lost to a corrupt kernel_block used to read as "nothing
// changed" (gate: pass, exit 0). Now the gate cannot judge: exit 4, with the losses counted.
TEST(CliDiff, ASideThatLostRecordsToDamageCannotPass) {
  const fs::path d = freshDir("damaged");
  const std::string whole = std::string(GPUFL_H200_DATA_DIR) + "/pytorch_blocks";
  const std::string block = damagedCopy(d, "block", true, false);
  auto r = runCaptured({"diff", whole, block});
  EXPECT_EQ(r.code, kExitDamaged) << r.out << r.err;
  EXPECT_NE(r.err.find("gpufl diff: NEW lost records to damage: 1 unreadable line; 9934 kernel "
                       "events lost with them; session_end counts 9934 kernel events, 0 were read"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("gate: CANNOT JUDGE"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("gate: pass"), std::string::npos) << r.out;
  r = runCaptured({"diff", block, whole, "--json"});
  EXPECT_EQ(r.code, kExitDamaged) << r.out << r.err;
  EXPECT_NE(r.out.find("\"pass\": false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"base_damage\": \"1 unreadable line;"), std::string::npos) << r.out;
  // One garbage line, every kernel intact: still not read whole.
  const std::string garbage = damagedCopy(d, "garbage", false, true);
  r = runCaptured({"diff", whole, garbage});
  EXPECT_EQ(r.code, kExitDamaged) << r.out << r.err;
  EXPECT_NE(r.err.find("NEW lost records to damage: 1 unreadable line\n"), std::string::npos)
      << r.err;
  r = runCaptured({"diff", whole, whole});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  fs::remove_all(d);
}

TEST(CliDiff, BadInputIsAClearError) {
  const std::string real = std::string(GPUFL_H200_DATA_DIR) + "/matmul_tiling";
  auto r = runCaptured({"diff", real, real, "--threshold", "five"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("expected a percentage such as 5%, got 'five'"), std::string::npos) << r.err;
  r = runCaptured({"diff", "/nonexistent/x", real});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("BASE: no log files under '/nonexistent/x'"), std::string::npos) << r.err;
  r = runCaptured({"diff", real, real, "--new-session", "ffffffff"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("NEW: no readable session 'ffffffff'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpufl::cli
