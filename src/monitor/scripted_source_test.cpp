#include "monitor/scripted_source.hpp"

#include <gtest/gtest.h>

#include "monitor/monitor_test_util.hpp"

namespace gpufl::monitor {
namespace {

using testing::TempDir;
using testing::writeFile;

TEST(ScriptedSource, ReplaysTicksAndRepeatsTheLast) {
  TempDir dir;
  std::string error;
  auto src = loadScriptedSource(writeFile(dir.path("s.ndjson"), testing::kTwoGpuScript), &error);
  ASSERT_TRUE(src) << error;
  ASSERT_TRUE(src->open().ok);
  ASSERT_EQ(src->gpus().size(), 2u);
  EXPECT_EQ(src->gpus()[1].index, 1u);
  EXPECT_EQ(src->gpus()[1].uuid, "GPU-bbbb");

  auto t1 = src->sample(100);
  ASSERT_EQ(t1.size(), 1u);
  EXPECT_EQ(t1[0].ts_ns, 100);
  EXPECT_EQ(t1[0].util_gpu, 10);
  EXPECT_EQ(t1[0].pcie_rx_kbps, 5u);
  EXPECT_FALSE(t1[0].power_mw.has_value());
  EXPECT_TRUE(src->processes().empty());

  for (int tick = 2; tick <= 3; ++tick) {
    auto t = src->sample(tick);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].util_gpu, 87);
    EXPECT_EQ(t[0].mem_total_bytes, 150000000000ull);
    EXPECT_EQ(t[0].energy_mj, 9876543210ull);
    EXPECT_EQ(t[0].throttle, 5u);
    EXPECT_EQ(t[0].throttle_reasons, (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
    EXPECT_EQ(t[1].gpu, 1u);
    auto procs = src->processes();
    ASSERT_EQ(procs.size(), 1u);
    EXPECT_EQ(procs[0].pid, 4242u);
    EXPECT_EQ(procs[0].used_bytes, 3221225472ull);
  }
}

TEST(ScriptedSource, OpenErrorMakesNvmlOff) {
  TempDir dir;
  std::string error;
  auto src = loadScriptedSource(
      writeFile(dir.path("s.ndjson"), "{\"open_error\": \"NVML found no GPU\"}\n"), &error);
  ASSERT_TRUE(src) << error;
  nvml::OpenStatus st = src->open();
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.reason, "NVML found no GPU");
}

struct BadCase {
  const char* script;
  const char* error;  // after "<path>:"
};

TEST(ScriptedSource, BadScriptsNameFileLineAndField) {
  const BadCase cases[] = {
      {"{\"devices\": [{\"name\": \"x\"}]}\n{\"samples\": [{\"gpu\": 0, \"util\": 3}]}\n",
       "2: unknown sample field 'util'"},
      {"{\"devices\": [{\"name\": \"x\"}]}\n\n{\"samples\": [{\"gpu\": 1}]}\n",
       "3: field 'gpu': 1 is not in 'devices'"},
      {"{\"devices\": [{\"name\": \"x\"}]}\n{\"samples\": [{\"gpu\": 0, \"temp_c\": \"hot\"}]}\n",
       "2: field 'temp_c': expected a non-negative integer"},
      {"{\"devices\": [{\"name\": \"x\"}]}\n{\"samples\": [{\"util_gpu\": 3}]}\n",
       "2: a sample has no field 'gpu'"},
      {"{\"devices\": [{\"name\": \"x\"}]}\n{\"processes\": [{\"gpu\": 0}]}\n",
       "2: a process needs 'gpu' and 'pid'"},
      {"{\"samples\": []}\n", "1: field 'samples': the first line holds 'devices' or 'open_error'"},
      {"{\"devices\": [{\"name\": \"x\"}]}\n{\"ticks\": []}\n",
       "2: unknown field 'ticks' (a tick holds 'samples', 'processes')"},
      {"{\"devices\": [{\"name\": \"x\"}]}\n[1, 2]\n", "2: not a JSON object"},
      {"{\"devices\": [{\"name\": \"x\"}]}\n{\"samples\": [{\"gpu\": 0,}]}\n", "2: malformed JSON"},
      {"", " empty NVML script (the first line holds 'devices' or 'open_error')"},
  };
  TempDir dir;
  for (const BadCase& c : cases) {
    std::string path = writeFile(dir.path("bad.ndjson"), c.script);
    std::string error;
    EXPECT_EQ(loadScriptedSource(path, &error), nullptr) << c.script;
    EXPECT_EQ(error.rfind(path + ":" + c.error, 0), 0u) << "got: " << error;
  }
  std::string error;
  EXPECT_EQ(loadScriptedSource(dir.path("missing.ndjson"), &error), nullptr);
  EXPECT_EQ(error, dir.path("missing.ndjson") + ": cannot open the NVML script");
}

}  // namespace
}  // namespace gpufl::monitor
