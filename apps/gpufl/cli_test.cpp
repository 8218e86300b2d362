#include "cli.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.hpp"
#include "log/log_writer.hpp"

namespace gpufl::cli {
namespace {

using testing::CliRun;

CliRun run(std::vector<std::string> args) {
  args.insert(args.begin(), "gpufl");
  std::ostringstream out, err;
  CliContext ctx{out, err};
  CliRun r;
  r.code = runCli(args, ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The value of a line's "type" field, or "" (the corpus lines are written by hand, one object
// each).
std::string recordType(const std::string& line) {
  const std::string key = "\"type\":\"";
  const size_t at = line.find(key);
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size();
  return line.substr(begin, line.find('"', begin) - begin);
}

TEST(Cli, Version) {
  CliRun r = run({"--version"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_EQ(r.out, "gpufl 0.1.0\n");
}

TEST(Cli, NoSubcommandPrintsHelp) {
  CliRun r = run({});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_TRUE(has(r.out, "occupancy"));
  EXPECT_TRUE(has(r.out, "report"));
}

TEST(Cli, UnknownSubcommandIsUsageError) {
  EXPECT_EQ(run({"fly"}).code, kExitUsage);
}

TEST(Cli, OccupancySeedCase) {
  CliRun r =
      run({"occupancy", "--arch", "sm_86", "--threads", "256", "--regs", "16", "--smem", "16384"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "blocks per SM     5")) << r.out;
  EXPECT_TRUE(has(r.out, "active warps      40 / 48")) << r.out;
  EXPECT_TRUE(has(r.out, "occupancy         83.3%")) << r.out;
  EXPECT_TRUE(has(r.out, "limited by: shared_mem")) << r.out;
  // 6 blocks need 102400/6 = 17066 -> 17024 B (128 B unit) minus the 1 KiB reserve.
  EXPECT_TRUE(has(r.out, "hint: at most 16000 B of shared memory per block")) << r.out;
  EXPECT_TRUE(has(r.out, "would allow 6 blocks: 100.0% occupancy")) << r.out;
}

TEST(Cli, OccupancySeedCaseJson) {
  CliRun r = run({"occupancy", "--arch", "sm_86", "--threads", "256", "--regs", "16", "--smem",
                  "16384", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "\"occupancy\":0.833333,")) << r.out;
  EXPECT_TRUE(has(r.out, "\"smem_occupancy\":0.833333,")) << r.out;
  EXPECT_TRUE(has(r.out, "\"reg_occupancy\":1,")) << r.out;
  EXPECT_TRUE(has(r.out, "\"max_active_blocks\":5,")) << r.out;
  EXPECT_TRUE(has(r.out, "\"limiting_resource\":\"shared_mem\"")) << r.out;
  EXPECT_TRUE(
      has(r.out, "\"block_limits\":{\"registers\":16,\"shared_mem\":5,\"warps\":6,\"blocks\":16}"))
      << r.out;
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n");
}

TEST(Cli, OccupancyFullIsLimitedByWarps) {
  CliRun r = run(
      {"occupancy", "--arch", "sm_86", "--threads", "256", "--regs", "16", "--dyn-smem", "1024"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "occupancy         100.0%")) << r.out;
  EXPECT_TRUE(has(r.out, "limited by: warps")) << r.out;
  EXPECT_TRUE(has(r.out, "hint: full occupancy")) << r.out;
}

TEST(Cli, OccupancyRegisterHint) {
  // 122 regs: 4 blocks; 96 regs -> 3072/warp -> 5 warps per sub-partition -> 5 blocks of 4 warps =
  // 20/48.
  CliRun r =
      run({"occupancy", "--arch", "sm_86", "--threads", "128", "--regs", "122", "--smem", "11264"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "limited by: registers")) << r.out;
  EXPECT_TRUE(has(r.out, "at most 96 registers per thread (now 122")) << r.out;
  EXPECT_TRUE(has(r.out, "would allow 5 blocks: 41.7% occupancy")) << r.out;
}

// Registers and shared memory both allow 4 blocks (16,384 registers and 52,224 B per block on
// sm_90): a register cap alone raises nothing, so none is offered.
TEST(Cli, OccupancyOffersNoRegisterCapWhenSharedMemoryLimitsToo) {
  CliRun r =
      run({"occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--smem", "51200"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "limited by: registers")) << r.out;
  EXPECT_FALSE(has(r.out, "__launch_bounds__")) << r.out;
  EXPECT_TRUE(has(r.out, "shared memory also allows only 4 blocks per SM")) << r.out;
}

TEST(Cli, OccupancyWarpAndBlockHints) {
  // --wide: the hint on one line (at 80 columns it wraps).
  CliRun warps =
      run({"occupancy", "--arch", "sm_86", "--threads", "320", "--regs", "32", "--wide"});
  EXPECT_TRUE(has(warps.out, "limited by: warps")) << warps.out;
  EXPECT_TRUE(has(warps.out,
                  "4 blocks of 10 warps use 40 of the SM's 48 warp slots; 256 threads per block"))
      << warps.out;
  CliRun blocks = run({"occupancy", "--arch", "sm_89", "--threads", "32", "--regs", "16"});
  EXPECT_TRUE(has(blocks.out, "limited by: blocks")) << blocks.out;
  EXPECT_TRUE(has(blocks.out, "use blocks of at least 64 threads")) << blocks.out;
}

TEST(Cli, OccupancyCarveoutHint) {
  CliRun r = run({"occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "32", "--smem",
                  "16384", "--carveout", "50"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "blocks per SM     7")) << r.out;
  EXPECT_TRUE(has(r.out, "the carveout preference (50%) leaves 135168 B")) << r.out;
}

TEST(Cli, OccupancyZeroBlocksExplains) {
  CliRun r = run(
      {"occupancy", "--arch", "sm_80", "--threads", "256", "--regs", "32", "--dyn-smem", "170000"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "blocks per SM     0")) << r.out;
  EXPECT_TRUE(has(r.out, "hint: no block fits: a block needs")) << r.out;
}

struct BadArgs {
  std::vector<std::string> args;
  const char* flag;
};

TEST(Cli, OccupancyBadArgumentsNameTheFlag) {
  const BadArgs cases[] = {
      {{"--arch", "sm_61", "--threads", "128", "--regs", "32"}, "--arch"},
      {{"--arch", "hopper", "--threads", "128", "--regs", "32"}, "--arch"},
      {{"--arch", "sm_90", "--threads", "0", "--regs", "32"}, "--threads"},
      {{"--arch", "sm_90", "--threads", "1025", "--regs", "32"}, "--threads"},
      {{"--arch", "sm_90", "--threads", "-5", "--regs", "32"}, "--threads"},
      {{"--arch", "sm_90", "--threads", "abc", "--regs", "32"}, "--threads"},
      {{"--arch", "sm_90", "--threads", "128", "--regs", "-1"}, "--regs"},
      {{"--arch", "sm_90", "--threads", "128", "--regs", "256"}, "--regs"},
      {{"--arch", "sm_90", "--threads", "128", "--regs", "32", "--smem", "-5"}, "--smem"},
      {{"--arch", "sm_90", "--threads", "128", "--regs", "32", "--dyn-smem=-1"}, "--dyn-smem"},
      {{"--arch", "sm_90", "--threads", "128", "--regs", "32", "--carveout", "101"}, "--carveout"},
      {{"--arch", "sm_90", "--threads", "128"}, "--regs"},
      {{"--threads", "128", "--regs", "32"}, "--arch"},
  };
  for (const BadArgs& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.begin(), "occupancy");
    CliRun r = run(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.code, kExitUsage) << joined << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.flag)) << joined << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << joined << "\n" << r.out;
  }
}

TEST(Cli, UnknownArchListsKnownOnes) {
  CliRun r = run({"occupancy", "--arch", "sm_61", "--threads", "128", "--regs", "32"});
  EXPECT_TRUE(has(r.err, "unknown architecture 'sm_61'")) << r.err;
  EXPECT_TRUE(has(r.err, "sm_70")) << r.err;
  EXPECT_TRUE(has(r.err, "sm_120")) << r.err;
}

TEST(Cli, LogCommandsNeedAPrefix) {
  EXPECT_EQ(run({"report"}).code, kExitUsage);
  EXPECT_EQ(run({"cat"}).code, kExitUsage);
  EXPECT_EQ(run({"sessions"}).code, kExitUsage);
  EXPECT_EQ(run({"report", "x", "--top", "0"}).code, kExitUsage);
  EXPECT_EQ(run({"cat", "x", "--channel", "gpu"}).code, kExitUsage);
}

TEST(Cli, TypoSuggestsTheNearestCommand) {
  CliRun r = run({"repot", "x"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_TRUE(has(r.err, "'repot' is not a command; did you mean 'gpufl report'?")) << r.err;
  CliRun far = run({"xyzzy"});
  EXPECT_EQ(far.code, kExitUsage);
  EXPECT_FALSE(has(far.err, "did you mean")) << far.err;
  EXPECT_TRUE(
      has(far.err, "commands: report cat sessions export occupancy trace agent diff monitor"))
      << far.err;
  EXPECT_EQ(nearestCommand("sesions", {"report", "sessions"}), "sessions");
  EXPECT_EQ(nearestCommand("tarce", {"trace", "cat"}), "trace");
}

TEST(Cli, ShortVersionAndHelpCommand) {
  CliRun v = run({"-V"});
  EXPECT_EQ(v.code, kExitOk);
  EXPECT_EQ(v.out, "gpufl 0.1.0\n");
  CliRun h = run({"help"});
  EXPECT_EQ(h.code, kExitOk);
  EXPECT_TRUE(has(h.out, "report")) << h.out;
  EXPECT_TRUE(has(h.out, "trace")) << h.out;
  CliRun hr = run({"help", "report"});
  EXPECT_EQ(hr.code, kExitOk);
  EXPECT_TRUE(has(hr.out, "--verbose")) << hr.out;
}

TEST(Cli, MissingLogIsFailureNamingTheFiles) {
  std::string prefix = (std::filesystem::temp_directory_path() / "gpufl_cli_test_missing").string();
  for (const char* cmd : {"report", "cat", "sessions"}) {
    CliRun r = run({cmd, prefix});
    EXPECT_EQ(r.code, kExitFailure) << cmd;
    EXPECT_TRUE(has(r.err, prefix + ".device.log")) << cmd << ": " << r.err;
  }
}

// A small session written with the real writer, read back through the CLI.
class CliLog : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("gpufl_cli_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    prefix_ = (dir_ / "run").string();
    std::string error;
    auto w = log::LogWriter::open({prefix_}, &error);
    ASSERT_TRUE(w) << error;
    SessionStart s;
    s.sid = "0123abcd";
    s.session_id = "0123abcd-0000-4000-8000-000000000001";
    s.app = "cli-test";
    s.start_ns = 1000;
    s.start_unix_ns = 1779426333000000000;  // 2026-05-22 05:05:33 UTC
    w->onSessionStart(s);
    KernelDef def;
    def.sid = s.sid;
    def.id = 1;
    def.name = def.demangled = "kern";
    w->onKernelDef(def);
    for (int i = 0; i < 3; ++i) {
      KernelEvent k;
      k.sid = s.sid;
      k.def_id = 1;
      k.correlation_id = 10 + i;
      k.start_ns = 5000 + 1000 * i;
      k.end_ns = k.start_ns + 500;
      w->onKernel(k);
    }
    HostSample h;
    h.sid = s.sid;
    h.ts_ns = 7000;
    h.cpu_pct = 12.5;
    w->onHostSample(h);
    SessionEnd e;
    e.sid = s.sid;
    e.end_ns = 9000;
    e.kernels = 3;
    w->onSessionEnd(e);
    w->close();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs with stdout captured through a temporary FILE*, as `cat` writes to one.
  CliRun runToFile(std::vector<std::string> args) { return testing::runCaptured(std::move(args)); }

  std::filesystem::path dir_;
  std::string prefix_;
};

TEST_F(CliLog, CatPrintsAbsoluteKernelTimes) {
  CliRun r = runToFile({"cat", prefix_});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "\"type\":\"session_start\"")) << r.out;
  EXPECT_TRUE(has(r.out, "\"start_ns\":7000")) << r.out;  // third kernel, absolute
  EXPECT_TRUE(has(r.out, "\"corr\":12")) << r.out;
  EXPECT_FALSE(has(r.out, "\"dt_ns\"")) << r.out;
  EXPECT_TRUE(has(r.out, "host_sample")) << r.out;
}

// One stream in time order: the kernel at 6000 ns (device channel) comes before the host sample at
// 7000 ns (system channel); session_start and session_end once, not once per channel.
TEST_F(CliLog, CatMergesTheChannelsByTime) {
  CliRun r = runToFile({"cat", prefix_});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto count = [&](const std::string& part) {
    size_t n = 0;
    for (size_t at = r.out.find(part); at != std::string::npos; at = r.out.find(part, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\"type\":\"session_start\""), 1u) << r.out;
  EXPECT_EQ(count("\"type\":\"session_end\""), 1u) << r.out;
  const size_t kernel_6000 = r.out.find("\"start_ns\":6000");
  const size_t host = r.out.find("host_sample");
  const size_t end = r.out.find("session_end");
  ASSERT_NE(kernel_6000, std::string::npos) << r.out;
  EXPECT_LT(kernel_6000, host) << r.out;
  EXPECT_LT(host, end) << r.out;
  EXPECT_LT(r.out.find("session_start"), r.out.find("kernel_def")) << r.out;
  // --by-channel keeps the stored order: each channel from its own session_start.
  CliRun stored = runToFile({"cat", prefix_, "--by-channel"});
  EXPECT_EQ(stored.code, kExitOk) << stored.err;
  EXPECT_GT(stored.out.size(), r.out.size()) << stored.out;
}

TEST_F(CliLog, CatNamesEachKernelEvent) {
  CliRun r = runToFile({"cat", prefix_});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  size_t named = 0;
  for (size_t at = r.out.find("\"k\":1,\"kernel\":\"kern\""); at != std::string::npos;
       at = r.out.find("\"k\":1,\"kernel\":\"kern\"", at + 1))
    ++named;
  EXPECT_EQ(named, 3u) << r.out;
}

// A directory with one prefix, or a channel file's path, stands for the prefix.
TEST_F(CliLog, PrefixMayBeADirectoryOrAChannelFile) {
  for (const std::string& given :
       {dir_.string(), prefix_ + ".device.log", prefix_ + ".system.log"}) {
    CliRun r = run({"report", given});
    EXPECT_EQ(r.code, kExitOk) << given << ": " << r.err;
    EXPECT_TRUE(has(r.out, "kern")) << given;
  }
  // Two prefixes in the directory: both listed, none picked.
  std::filesystem::copy_file(prefix_ + ".device.log", (dir_ / "other.device.log").string());
  CliRun r = run({"sessions", dir_.string()});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_TRUE(has(r.err, "holds logs of 2 prefixes")) << r.err;
  EXPECT_TRUE(has(r.err, "\n  " + prefix_ + "\n")) << r.err;
  EXPECT_TRUE(has(r.err, (dir_ / "other").string())) << r.err;
}

// Errors are said once, without internal words, and a near miss lists the prefixes beside it.
TEST_F(CliLog, ErrorsAreSaidOnce) {
  CliRun r = run({"report", prefix_ + "x"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;  // the error, one prefix
  EXPECT_TRUE(has(r.err, "gpufl report: no GPU Flight logs at '" + prefix_ + "x'")) << r.err;
  EXPECT_TRUE(has(r.err, "\n  " + prefix_ + "\n")) << r.err;
  for (const char* cmd : {"report", "cat"}) {
    CliRun s = runToFile({cmd, prefix_, "--session", "ffff"});
    EXPECT_EQ(s.code, kExitFailure) << cmd;
    EXPECT_EQ(std::count(s.err.begin(), s.err.end(), '\n'), 1) << cmd << ": " << s.err;
    EXPECT_TRUE(has(s.err, "no session matches 'ffff'; available sessions: 0123abcd")) << s.err;
  }
  CliRun listing = run({"sessions", prefix_});
  EXPECT_FALSE(has(listing.out, "sid")) << listing.out;
}

TEST_F(CliLog, CatFiltersByChannel) {
  CliRun r = runToFile({"cat", prefix_, "--channel", "system"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "host_sample")) << r.out;
  EXPECT_FALSE(has(r.out, "kernel_event")) << r.out;
}

// Every record kind the reader knows comes out of cat: the fuzz corpus's all_record_types.log
// holds one of each; read as one device file, cat must print each type, and the three channels
// together must print them all again.
TEST_F(CliLog, CatKeepsEveryRecordType) {
  const std::filesystem::path corpus =
      std::filesystem::path(GPUFL_CORPUS_DIR) / "all_record_types.log";
  const std::string every_prefix = (dir_ / "every").string();
  std::filesystem::copy_file(corpus, every_prefix + ".device.log");
  std::ifstream in(corpus);
  std::set<std::string> types;
  for (std::string line; std::getline(in, line);) types.insert(recordType(line));
  types.erase("");
  ASSERT_GE(types.size(), 20u) << "the corpus lost record kinds";

  CliRun all = runToFile({"cat", every_prefix});
  ASSERT_EQ(all.code, kExitOk) << all.err;
  std::string by_channel;
  for (const char* channel : {"device", "scope", "system"})
    by_channel += runToFile({"cat", every_prefix, "--channel", channel}).out;
  for (const std::string& type : types) {
    const std::string field = "\"type\":\"" + type + "\"";
    EXPECT_TRUE(has(all.out, field)) << "cat dropped " << type << "\n" << all.out;
    EXPECT_TRUE(has(by_channel, field)) << "no channel prints " << type;
  }
}

TEST_F(CliLog, SessionsListsTheSession) {
  CliRun r = run({"sessions", prefix_});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "0123abcd")) << r.out;
  EXPECT_TRUE(has(r.out, "cli-test")) << r.out;
  EXPECT_TRUE(has(r.out, "2026-05-22 05:05:33 UTC")) << r.out;
}

TEST_F(CliLog, ReportPrintsText) {
  CliRun r = run({"report", prefix_, "--top", "5"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "kern")) << r.out;
}

}  // namespace
}  // namespace gpufl::cli
