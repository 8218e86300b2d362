// The public API end to end, through libgpufl.so, with the NDJSON files read back line by line
// (simdjson), so the test does not depend on our own reader.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpufl/gpufl.hpp"

namespace {

namespace fs = std::filesystem;

struct Line {
  std::string type, sid;
  std::string raw;
};

// Field readers: a missing or mistyped field reads as empty/0 (and the comparisons then fail
// visibly).
std::string S(simdjson::dom::element e, const char* key) {
  std::string_view v;
  return e[key].get(v) == simdjson::SUCCESS ? std::string(v) : std::string("<missing ") + key + ">";
}
uint64_t U(simdjson::dom::element e, const char* key) {
  uint64_t v = 0;
  return e[key].get(v) == simdjson::SUCCESS ? v : ~uint64_t{0};
}
int64_t I(simdjson::dom::element e, const char* key) {
  int64_t v = 0;
  return e[key].get(v) == simdjson::SUCCESS ? v : -1;
}

std::vector<std::string> readLines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpufl_api_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    prefix_ = (dir_ / "run").string();
  }
  void TearDown() override {
    gpufl::shutdown();
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::string prefix_;
  simdjson::dom::parser parser_;
};

// A full session: 4 threads of nested scopes, then every scope_begin must pair with a scope_end on
// the same thread and path, every path must be described before use, and the session records must
// frame it all.
TEST_F(ApiTest, WholeSessionWithoutGpu) {
  gpufl::shutdown();  // without init: harmless
  EXPECT_EQ(gpufl::scopeBegin("before.init"), 0u);
  { gpufl::Scope early("before.init"); }

  setenv("GPUFL_SAMPLE_RATE_MS", "soon", 1);  // a bad override: a note, not a failure
  gpufl::InitOptions opts;
  opts.app_name = "api_test";
  opts.log_path = prefix_;
  const bool gpu = gpufl::init(opts);
  unsetenv("GPUFL_SAMPLE_RATE_MS");
  EXPECT_TRUE(gpufl::isRecording());
  EXPECT_EQ(gpufl::isProfiling(), gpu);
  EXPECT_EQ(gpufl::init(opts), gpu);  // second init: same answer, nothing new written

  constexpr int kThreads = 4, kIters = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kIters; ++i) {
        GFL_SCOPE("step") {
          gpufl::Scope work("work", "t" + std::to_string(t));
          GFL_SCOPE("leaf", "tagged") {}
          const uint64_t id = gpufl::scopeBegin(std::string("dyn") + std::to_string(i % 3));
          gpufl::scopeEnd(id);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  gpufl::shutdown();
  gpufl::shutdown();  // twice: harmless
  EXPECT_FALSE(gpufl::isRecording());
  EXPECT_EQ(gpufl::scopeBegin("after.shutdown"), 0u);
  { gpufl::Scope late("after.shutdown"); }
  gpufl::scopeEnd(0);

  // Scope channel.
  std::map<uint64_t, std::string> path_name;
  std::map<uint64_t, uint64_t> path_parent;
  std::map<uint64_t, std::pair<uint64_t, int64_t>> open;  // id -> (path, tid)
  std::map<int64_t, std::vector<uint64_t>> stacks;        // tid -> open paths
  std::string sid;
  int starts = 0, ends = 0, begins = 0, scope_ends = 0;
  uint64_t end_scopes = 0;
  for (const std::string& raw : readLines(prefix_ + ".scope.log")) {
    simdjson::dom::element e = parser_.parse(raw);
    const std::string type = S(e, "type");
    const std::string line_sid = S(e, "sid");
    if (type == "session_start") {
      ++starts;
      sid = line_sid;
      EXPECT_EQ(S(e, "app"), "api_test");
      EXPECT_EQ(I(e, "pid"), getpid());
      continue;
    }
    EXPECT_EQ(line_sid, sid) << raw;
    if (type == "scope_path") {
      const uint64_t p = U(e, "p"), parent = U(e, "parent");
      EXPECT_TRUE(parent == 0 || path_name.count(parent)) << "parent described first: " << raw;
      EXPECT_FALSE(path_name.count(p)) << "described once: " << raw;
      path_name[p] = S(e, "name");
      path_parent[p] = parent;
    } else if (type == "scope_begin") {
      ++begins;
      const uint64_t id = U(e, "id"), p = U(e, "p");
      const int64_t tid = I(e, "tid");
      ASSERT_TRUE(path_name.count(p)) << raw;
      EXPECT_EQ(path_name[p], S(e, "name"));
      auto& stack = stacks[tid];
      EXPECT_EQ(path_parent[p], stack.empty() ? 0 : stack.back())
          << "path follows nesting: " << raw;
      EXPECT_EQ(I(e, "depth"), static_cast<int64_t>(stack.size()));
      if (path_name[p] == "leaf") {
        EXPECT_EQ(S(e, "tag"), "tagged");
      }
      stack.push_back(p);
      EXPECT_TRUE(open.emplace(id, std::make_pair(p, tid)).second) << "unique id: " << raw;
    } else if (type == "scope_end") {
      ++scope_ends;
      const uint64_t id = U(e, "id");
      auto it = open.find(id);
      ASSERT_NE(it, open.end()) << raw;
      EXPECT_EQ(it->second.first, U(e, "p"));
      EXPECT_EQ(it->second.second, I(e, "tid"));
      auto& stack = stacks[it->second.second];
      ASSERT_FALSE(stack.empty());
      EXPECT_EQ(stack.back(), it->second.first) << "ends innermost first";
      stack.pop_back();
      open.erase(it);
    } else if (type == "session_end") {
      ++ends;
      end_scopes = U(e, "scopes");
      EXPECT_EQ(U(e["dropped"], "scope"), 0u);
    }
  }
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(begins, kThreads * kIters * 4);
  EXPECT_EQ(scope_ends, begins);
  EXPECT_TRUE(open.empty());
  EXPECT_EQ(end_scopes, static_cast<uint64_t>(begins));
  EXPECT_EQ(stacks.size(), static_cast<size_t>(kThreads));
  std::set<std::string> names;
  for (auto& [p, n] : path_name) names.insert(n);
  EXPECT_EQ(names, (std::set<std::string>{"step", "work", "leaf", "dyn0", "dyn1", "dyn2"}));
  EXPECT_EQ(path_name.size(), 6u);  // step, step/work, step/work/leaf, step/work/dyn0..2

  // Device channel: session records, the missing-backend note (without CUDA) and the bad override's
  // note.
  int dev_starts = 0, dev_ends = 0;
  bool cupti_note = false, options_note = false;
  for (const std::string& raw : readLines(prefix_ + ".device.log")) {
    simdjson::dom::element e = parser_.parse(raw);
    const std::string type = S(e, "type");
    EXPECT_EQ(S(e, "sid"), sid);
    if (type == "session_start") {
      ++dev_starts;
      EXPECT_TRUE(e["devices"].is_array());
      EXPECT_EQ(S(e["options"], "app_name"), "api_test");
    } else if (type == "session_end") {
      ++dev_ends;
      EXPECT_GT(U(e, "bytes_written"), 0u);
      EXPECT_NE(U(e["overhead_ns"], "writer"), ~uint64_t{0});
    } else if (type == "note") {
      const std::string feature = S(e, "feature");
      if (feature == "cupti_activity" && !gpu) {
        cupti_note = true;
        EXPECT_EQ(S(e, "status"), "off");
      }
      if (feature == "options") {
        options_note = true;
        EXPECT_NE(S(e, "reason").find("GPUFL_SAMPLE_RATE_MS"), std::string_view::npos);
      }
    }
  }
  EXPECT_EQ(dev_starts, 1);
  EXPECT_EQ(dev_ends, 1);
  EXPECT_TRUE(cupti_note || gpu);
  EXPECT_TRUE(options_note);
  int sys_records = 0;
  for (const std::string& raw : readLines(prefix_ + ".system.log")) {
    simdjson::dom::element e = parser_.parse(raw);
    const std::string type = S(e, "type");
    if (type == "session_start" || type == "session_end") ++sys_records;
  }
  EXPECT_EQ(sys_records, 2);

  // The report of the last session (when this build has the report library) goes to stdout.
  testing::internal::CaptureStdout();
  const bool reported = gpufl::generateReport();
  const std::string text = testing::internal::GetCapturedStdout();
  if (reported) {
    EXPECT_FALSE(text.empty());
  }
}

TEST_F(ApiTest, SecondSessionAppendsToTheSamePrefix) {
  gpufl::InitOptions opts;
  opts.log_path = prefix_;
  for (int run = 0; run < 2; ++run) {
    gpufl::init(opts);
    GFL_SCOPE("run") {}
    gpufl::shutdown();
  }
  std::set<std::string> sids;
  int begins = 0;
  for (const std::string& raw : readLines(prefix_ + ".scope.log")) {
    simdjson::dom::element e = parser_.parse(raw);
    sids.insert(S(e, "sid"));
    if (S(e, "type") == "scope_begin") ++begins;
  }
  EXPECT_EQ(sids.size(), 2u);
  EXPECT_EQ(begins, 2);
}

TEST_F(ApiTest, DefaultLogPathIsTheAppNameInTheWorkingDirectory) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  gpufl::InitOptions opts;
  opts.app_name = "defaulted";
  gpufl::init(opts);
  gpufl::shutdown();
  fs::current_path(cwd);
  EXPECT_TRUE(fs::exists(dir_ / "defaulted.scope.log"));
  EXPECT_TRUE(fs::exists(dir_ / "defaulted.device.log"));
  EXPECT_TRUE(fs::exists(dir_ / "defaulted.system.log"));
}

TEST_F(ApiTest, UnwritableLogPathReturnsFalseAndTheProgramRunsOn) {
  gpufl::InitOptions opts;
  opts.log_path = "/proc/gpufl-no-such-dir/run";
  testing::internal::CaptureStderr();
  EXPECT_FALSE(gpufl::init(opts));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("/proc/gpufl-no-such-dir/run"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one message: " << err;
  EXPECT_FALSE(gpufl::isRecording());
  EXPECT_EQ(gpufl::scopeBegin("x"), 0u);
  gpufl::shutdown();
  opts.log_path = prefix_;  // a later init with a good path works
  gpufl::init(opts);
  EXPECT_TRUE(gpufl::isRecording());
}

TEST_F(ApiTest, DisableSwitchRecordsNothing) {
  gpufl::InitOptions opts;
  opts.log_path = prefix_;
  setenv("GPUFL_DISABLE", "1", 1);
  testing::internal::CaptureStderr();
  const bool on = gpufl::init(opts);
  const std::string err = testing::internal::GetCapturedStderr();
  unsetenv("GPUFL_DISABLE");
  EXPECT_FALSE(on);
  EXPECT_NE(err.find("GPUFL_DISABLE"), std::string::npos) << err;
  EXPECT_NE(err.find("no log is written"), std::string::npos) << err;  // and none is
  EXPECT_EQ(err.find("still"), std::string::npos) << err;
  EXPECT_FALSE(gpufl::isRecording());
  GFL_SCOPE("ignored") {}
  gpufl::shutdown();
  EXPECT_FALSE(fs::exists(prefix_ + ".scope.log"));
}

// Under gpufl trace (GPUFL_LOG_PATH set) the program's own log_path is replaced, and the program is
// told where its logs went; without a GPU, one line says why and where scopes still go.
TEST_F(ApiTest, AReplacedLogPathAndAMissingGpuAreSaidPlainly) {
  gpufl::InitOptions opts;
  opts.log_path = prefix_;
  const std::string traced = (dir_ / "traced").string();
  setenv("GPUFL_LOG_PATH", traced.c_str(), 1);
  testing::internal::CaptureStderr();
  gpufl::init(opts);
  const std::string err = testing::internal::GetCapturedStderr();
  unsetenv("GPUFL_LOG_PATH");
  gpufl::shutdown();
  EXPECT_NE(err.find("log_path '" + prefix_ + "' is replaced by GPUFL_LOG_PATH"), std::string::npos)
      << err;
  EXPECT_NE(err.find("this session's logs are " + traced + ".{device,scope,system}.log"),
            std::string::npos)
      << err;
  EXPECT_TRUE(fs::exists(traced + ".scope.log"));
  EXPECT_FALSE(fs::exists(prefix_ + ".scope.log"));
  // CI has no GPU: the one GPU line says so and where scopes went (on a GPU machine, no such line).
  if (err.find("GPU profiling off") != std::string::npos) {
    EXPECT_NE(err.find("Scopes and system samples still go to " + traced), std::string::npos)
        << err;
  }
}

int countScopeBegins(const std::vector<std::string>& lines, const std::string& name_prefix) {
  simdjson::dom::parser parser;
  int n = 0;
  for (const std::string& raw : lines) {
    simdjson::dom::element e = parser.parse(raw);
    if (S(e, "type") == "scope_begin" && S(e, "name").rfind(name_prefix, 0) == 0) ++n;
  }
  return n;
}

int countType(const std::vector<std::string>& lines, const std::string& type) {
  simdjson::dom::parser parser;
  int n = 0;
  for (const std::string& raw : lines) {
    simdjson::dom::element e = parser.parse(raw);
    if (S(e, "type") == type) ++n;
  }
  return n;
}

// A program that never calls shutdown() still gets a complete log (atexit), including the main
// thread's records.
TEST_F(ApiTest, ForgottenShutdownIsFlushedAtExit) {
  const std::string prefix = prefix_ + "_atexit";
  EXPECT_EXIT(
      {
        gpufl::InitOptions o;
        o.log_path = prefix;
        gpufl::init(o);
        { gpufl::Scope s("at.exit"); }
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  const auto lines = readLines(prefix + ".scope.log");
  EXPECT_EQ(countScopeBegins(lines, "at.exit"), 1);
  EXPECT_EQ(countType(lines, "session_end"), 1);
}

// fork() while recording: the child must not hang (the writer thread is not there) nor write to
// the parent's files, and may start its own session (not under TSan, which cannot start threads in
// the child of a multi-threaded process).
#if defined(__SANITIZE_THREAD__)
constexpr bool kChildStartsSession = false;
#else
constexpr bool kChildStartsSession = true;
#endif

TEST_F(ApiTest, ForkedChildNeitherHangsNorWritesToTheParentsLog) {
  gpufl::InitOptions opts;
  opts.log_path = prefix_;
  gpufl::init(opts);
  GFL_SCOPE("parent.before") {}
  const std::string child_prefix = prefix_ + "_child";
  const pid_t pid = fork();
  if (pid == 0) {
    { gpufl::Scope s("child.inherited"); }
    const bool inherited_recording = gpufl::isRecording();
    gpufl::shutdown();
    bool own_recording = true;
    if (kChildStartsSession) {
      gpufl::InitOptions o;
      o.log_path = child_prefix;
      gpufl::init(o);
      own_recording = gpufl::isRecording();
      { gpufl::Scope s("child.own"); }
      gpufl::shutdown();
    }
    _exit(inherited_recording ? 3 : own_recording ? 0 : 4);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 1000 && done == 0; ++i) {
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0) usleep(10000);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "the forked child hung";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  GFL_SCOPE("parent.after") {}
  gpufl::shutdown();
  const auto parent = readLines(prefix_ + ".scope.log");
  EXPECT_EQ(countScopeBegins(parent, "child."), 0);
  EXPECT_EQ(countScopeBegins(parent, "parent."), 2);
  EXPECT_EQ(countType(parent, "session_end"), 1);
  if (kChildStartsSession) {
    const auto child = readLines(child_prefix + ".scope.log");
    EXPECT_EQ(countScopeBegins(child, "child.own"), 1);
    EXPECT_EQ(countScopeBegins(child, "child.inherited"), 0);
    EXPECT_EQ(countType(child, "session_end"), 1);
  }
}

TEST_F(ApiTest, GenerateReportWithoutAnyLogFails) {
  testing::internal::CaptureStderr();
  EXPECT_FALSE(gpufl::generateReport((dir_ / "nothing_here").string()));
  testing::internal::GetCapturedStderr();
}

}  // namespace
