#include "runtime/options_env.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace gpufl::runtime {
namespace {

EnvLookup fakeEnv(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(OptionsEnvTest, Parsers) {
  EXPECT_EQ(parseBool("1"), true);
  EXPECT_EQ(parseBool(" TRUE "), true);
  EXPECT_EQ(parseBool("On"), true);
  EXPECT_EQ(parseBool("no"), false);
  EXPECT_EQ(parseBool("0"), false);
  EXPECT_EQ(parseBool("maybe"), std::nullopt);
  EXPECT_EQ(parseBool(""), std::nullopt);
  EXPECT_EQ(parseEngine("PcSamplingWithSass"), ProfilingEngine::PcSamplingWithSass);
  EXPECT_EQ(parseEngine("pc_sampling"), ProfilingEngine::PcSampling);
  EXPECT_EQ(parseEngine("SASS-METRICS"), ProfilingEngine::SassMetrics);
  EXPECT_EQ(parseEngine("none"), ProfilingEngine::None);
  EXPECT_EQ(parseEngine("rangeprofiler"), ProfilingEngine::RangeProfiler);
  EXPECT_EQ(parseEngine("turbo"), std::nullopt);
  EXPECT_EQ(parseInt("250", 0, 1000), 250);
  EXPECT_EQ(parseInt(" 7 ", 0, 10), 7);
  EXPECT_EQ(parseInt("-1", 0, 10), std::nullopt);
  EXPECT_EQ(parseInt("11", 0, 10), std::nullopt);
  EXPECT_EQ(parseInt("12ms", 0, 100), std::nullopt);
  EXPECT_EQ(parseInt("99999999999999999999999", 0, 100), std::nullopt);
  EXPECT_EQ(jsonString("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
}

TEST(OptionsEnvTest, OverridesWinOverCode) {
  InitOptions o;
  o.app_name = "code";
  o.log_path = "./code";
  std::vector<OptionIssue> issues;
  applyEnvOverrides(o,
                    fakeEnv({{"GPUFL_LOG_PATH", "/tmp/env_prefix"},
                             {"GPUFL_APP_NAME", "envapp"},
                             {"GPUFL_ENGINE", "SassMetrics"},
                             {"GPUFL_SAMPLE_RATE_MS", "250"},
                             {"GPUFL_DEBUG", "yes"},
                             {"GPUFL_STACK_TRACE", "1"}}),
                    &issues);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(o.log_path, "/tmp/env_prefix");
  EXPECT_EQ(o.app_name, "envapp");
  EXPECT_EQ(o.profiling_engine, ProfilingEngine::SassMetrics);
  EXPECT_EQ(o.system_sample_rate_ms, 250);
  EXPECT_TRUE(o.enable_debug_output);
  EXPECT_TRUE(o.enable_stack_trace);
}

TEST(OptionsEnvTest, BadValuesKeepTheOptionAndReportIt) {
  InitOptions o;
  o.system_sample_rate_ms = 100;
  o.profiling_engine = ProfilingEngine::PcSampling;
  std::vector<OptionIssue> issues;
  applyEnvOverrides(o,
                    fakeEnv({{"GPUFL_ENGINE", "warp9"},
                             {"GPUFL_SAMPLE_RATE_MS", "fast"},
                             {"GPUFL_DEBUG", "perhaps"},
                             {"GPUFL_STACK_TRACE", "2"},
                             {"GPUFL_LOG_PATH", ""}}),
                    &issues);
  // One issue per bad value, in the table's order (include/gpufl/init_options.hpp).
  ASSERT_EQ(issues.size(), 4u);
  EXPECT_EQ(issues[0].option, "GPUFL_SAMPLE_RATE_MS");
  EXPECT_EQ(issues[0].message,
            "GPUFL_SAMPLE_RATE_MS='fast' is not an integer in 0..3600000; using 100");
  EXPECT_EQ(issues[1].option, "GPUFL_STACK_TRACE");
  EXPECT_EQ(issues[2].option, "GPUFL_DEBUG");
  EXPECT_EQ(
      issues[2].message,
      "GPUFL_DEBUG='perhaps' is not a boolean (1/0, true/false, yes/no, on/off); using false");
  EXPECT_EQ(issues[3].option, "GPUFL_ENGINE");
  EXPECT_NE(issues[3].message.find("'warp9'"), std::string::npos);
  EXPECT_NE(issues[3].message.find("using PcSampling"), std::string::npos);
  EXPECT_EQ(o.profiling_engine, ProfilingEngine::PcSampling);
  EXPECT_EQ(o.system_sample_rate_ms, 100);
  EXPECT_FALSE(o.enable_debug_output);
  EXPECT_TRUE(o.log_path.empty());  // empty variable = unset
}

TEST(OptionsEnvTest, SyncEventsAreOffByDefaultAndGpuflSyncEventsSwitchesThem) {
  InitOptions o;
  EXPECT_FALSE(o.enable_sync_events);
  std::vector<OptionIssue> issues;
  applyEnvOverrides(o, fakeEnv({{"GPUFL_SYNC_EVENTS", "1"}}), &issues);
  EXPECT_TRUE(o.enable_sync_events);
  EXPECT_EQ(optionsJson(o).at("enable_sync_events"), "true");
  applyEnvOverrides(o, fakeEnv({{"GPUFL_SYNC_EVENTS", "maybe"}}), &issues);
  EXPECT_TRUE(o.enable_sync_events);  // unchanged, and reported
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].option, "GPUFL_SYNC_EVENTS");
  EXPECT_FALSE(o.enable_memory_events);
  applyEnvOverrides(o, fakeEnv({{"GPUFL_MEMORY_EVENTS", "yes"}}), &issues);
  EXPECT_TRUE(o.enable_memory_events);
  EXPECT_EQ(optionsJson(o).at("enable_memory_events"), "true");
}

TEST(OptionsEnvTest, NvtxIsOnByDefaultAndGpuflNvtxSwitchesIt) {
  InitOptions o;
  EXPECT_TRUE(o.enable_nvtx);  // docs/nvtx.md
  std::vector<OptionIssue> issues;
  applyEnvOverrides(o, fakeEnv({{"GPUFL_NVTX", "0"}}), &issues);
  EXPECT_FALSE(o.enable_nvtx);
  applyEnvOverrides(o, fakeEnv({{"GPUFL_NVTX", "on"}}), &issues);
  EXPECT_TRUE(o.enable_nvtx);
  EXPECT_TRUE(issues.empty());
  // Code may turn it off; an unset variable keeps the code's choice.
  o.enable_nvtx = false;
  applyEnvOverrides(o, fakeEnv({{"GPUFL_NVTX", ""}}), &issues);
  EXPECT_FALSE(o.enable_nvtx);
  // A bad value keeps the option and says so.
  applyEnvOverrides(o, fakeEnv({{"GPUFL_NVTX", "sometimes"}}), &issues);
  EXPECT_FALSE(o.enable_nvtx);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].option, "GPUFL_NVTX");
  EXPECT_NE(issues[0].message.find("using false"), std::string::npos) << issues[0].message;
  EXPECT_EQ(optionsJson(o).at("enable_nvtx"), "false");
}

TEST(OptionsEnvTest, NoEnvironmentChangesNothing) {
  InitOptions o, before;
  applyEnvOverrides(o, fakeEnv({}), nullptr);
  applyEnvOverrides(o, EnvLookup{}, nullptr);
  EXPECT_EQ(o.app_name, before.app_name);
  EXPECT_EQ(o.system_sample_rate_ms, before.system_sample_rate_ms);
}

TEST(OptionsEnvTest, ResolveDefaultsAndClamps) {
  InitOptions o;
  o.app_name = "my/app";
  o.system_sample_rate_ms = -5;
  o.deep_launches_per_kernel = -1;
  std::vector<OptionIssue> issues;
  resolveOptions(o, &issues);
  EXPECT_EQ(o.log_path, "./my_app");
  EXPECT_EQ(o.system_sample_rate_ms, 0);
  EXPECT_EQ(o.deep_launches_per_kernel, 0);
  EXPECT_EQ(issues.size(), 2u);

  InitOptions limits;  // the health period and gpufl's own cost limits: 0 is off, below is a typo
  limits.health_period_s = -1;
  limits.max_cpu_pct = -3;
  limits.max_memory_mb = 64;
  issues.clear();
  resolveOptions(limits, &issues);
  EXPECT_EQ(limits.health_period_s, 0);
  EXPECT_EQ(limits.max_cpu_pct, 0);
  EXPECT_EQ(limits.max_memory_mb, 64);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[1].message, "max_cpu_pct=-3 is negative; using 0 (no limit)");

  InitOptions empty;
  empty.app_name.clear();
  resolveOptions(empty, nullptr);
  EXPECT_EQ(empty.app_name, "gpufl");
  EXPECT_EQ(empty.log_path, "./gpufl");
}

TEST(OptionsEnvTest, DisableSwitch) {
  std::string bad;
  EXPECT_FALSE(disabledByEnvironment(fakeEnv({}), &bad));
  EXPECT_FALSE(disabledByEnvironment(fakeEnv({{"GPUFL_DISABLE", ""}}), &bad));
  EXPECT_FALSE(disabledByEnvironment(fakeEnv({{"GPUFL_DISABLE", "0"}}), &bad));
  EXPECT_TRUE(disabledByEnvironment(fakeEnv({{"GPUFL_DISABLE", "yes"}}), &bad));
  EXPECT_TRUE(bad.empty());
  EXPECT_FALSE(disabledByEnvironment(fakeEnv({{"GPUFL_DISABLE", "please"}}), &bad));
  EXPECT_EQ(bad, "please");
}

TEST(OptionsEnvTest, OptionsJsonIsJsonText) {
  InitOptions o;
  o.app_name = "q\"uote";
  o.profiling_engine = ProfilingEngine::PcSamplingWithSass;
  const auto m = optionsJson(o);
  EXPECT_EQ(m.at("app_name"), "\"q\\\"uote\"");
  EXPECT_EQ(m.at("profiling_engine"), "\"PcSamplingWithSass\"");
  EXPECT_EQ(m.at("sampling_auto_start"), "true");
  EXPECT_EQ(m.at("system_sample_rate_ms"), "100");
  EXPECT_EQ(m.count("rotate_bytes"), 1u);
  EXPECT_STREQ(profilingEngineName(ProfilingEngine::RangeProfiler), "RangeProfiler");
}

// The table (include/gpufl/init_options.hpp) against the environment parsing and
// session_start.options: each variable, set to a value other than the default, changes its own
// option and nothing else.
std::string changedText(const std::string& v) {
  return v + "-from-env";
}
std::string changedText(bool v) {
  return v ? "off" : "on";
}
std::string changedText(int v) {
  return std::to_string(v + 7);
}
std::string changedText(std::uint64_t v) {
  return std::to_string(v + 7);
}
std::string changedText(ProfilingEngine v) {
  return v == ProfilingEngine::RangeProfiler ? "pc_sampling" : "RANGE-PROFILER";
}

TEST(InitOptionsTable, EveryEnvironmentVariableSetsItsOwnOptionOnly) {
  const auto defaults = optionsJson(InitOptions{});
  size_t rows = 0;
  auto check = [&](const char* option, const char* env_name, const auto& default_value) {
    ++rows;
    SCOPED_TRACE(env_name);
    InitOptions o;
    std::vector<OptionIssue> issues;
    applyEnvOverrides(o, fakeEnv({{env_name, changedText(default_value)}}), &issues);
    EXPECT_TRUE(issues.empty()) << issues.front().message;
    const auto after = optionsJson(o);
    ASSERT_EQ(after.size(), defaults.size());
    for (const auto& [key, json] : after) {
      if (key == option)
        EXPECT_NE(json, defaults.at(key)) << key << " did not change";
      else
        EXPECT_EQ(json, defaults.at(key)) << key << " changed";
    }
  };
#define GFL_CHECK_ROW_(type, name, default_value, env, doc) \
  check(#name, env, static_cast<type>(default_value));
  GFL_INIT_OPTIONS(GFL_CHECK_ROW_)
#undef GFL_CHECK_ROW_
  EXPECT_EQ(rows, defaults.size()) << "session_start.options has a key the table lacks";
}

TEST(InitOptionsTable, NamesAndVariablesAreUniqueAndDocumented) {
  std::ifstream in(std::string(GPUFL_TEST_DATA_DIR) + "/../../docs/runtime.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  std::set<std::string> names, vars;
  auto check = [&](const std::string& name, const std::string& env, const std::string& what) {
    EXPECT_TRUE(names.insert(name).second) << "option " << name << " twice";
    EXPECT_TRUE(vars.insert(env).second) << "variable " << env << " twice";
    EXPECT_EQ(env.rfind("GPUFL_", 0), 0u) << env;
    EXPECT_FALSE(what.empty()) << name << " has no description";
    // docs/runtime.md, "Options": one table row per option: | `name` | `GPUFL_...` | ...
    EXPECT_NE(doc.str().find("| `" + name + "` | `" + env + "` |"), std::string::npos)
        << "docs/runtime.md lacks the row | `" << name << "` | `" << env << "` |";
  };
#define GFL_CHECK_ROW_(type, name, default_value, env, doc) check(#name, env, doc);
  GFL_INIT_OPTIONS(GFL_CHECK_ROW_)
#undef GFL_CHECK_ROW_
}

}  // namespace
}  // namespace gpufl::runtime
