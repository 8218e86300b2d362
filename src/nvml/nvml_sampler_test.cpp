#include "nvml/nvml_sampler.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>

namespace gpufl::nvml {
namespace {

// A fake NVML: two GPUs whose answers the tests set. Plain functions (the table holds C function
// pointers), so the state is global and reset by the fixture.
struct FakeNvml {
  Return init_ret = kSuccess;
  unsigned int count = 2;
  int inits = 0, shutdowns = 0;
  std::map<std::string, Return> fail;  // call name -> error it returns
  std::map<std::string, int> calls;
  unsigned int processes = 3;  // per GPU; pid 100*(gpu+1)+i, memory (i+1) GiB, the last one unknown
};
FakeNvml g;

Device handleOf(unsigned int i) {
  return reinterpret_cast<Device>(static_cast<uintptr_t>(0x1000 + i));
}
unsigned int indexOf(Device d) {
  return static_cast<unsigned int>(reinterpret_cast<uintptr_t>(d) - 0x1000);
}
Return answer(const char* name) {
  ++g.calls[name];
  auto it = g.fail.find(name);
  return it == g.fail.end() ? kSuccess : it->second;
}

Return fakeInit() {
  return ++g.inits, g.init_ret;
}
Return fakeShutdown() {
  return ++g.shutdowns, kSuccess;
}
const char* fakeErrorString(Return r) {
  switch (r) {
    case kErrorNotSupported:
      return "Not Supported";
    case kErrorDriverNotLoaded:
      return "Driver Not Loaded";
    case kErrorGpuIsLost:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}
Return fakeCount(unsigned int* n) {
  return *n = g.count, answer("count");
}
Return fakeHandle(unsigned int i, Device* d) {
  return *d = handleOf(i), answer("handle");
}
Return fakeName(Device d, char* buf, unsigned int len) {
  std::snprintf(buf, len, "NVIDIA H200 #%u", indexOf(d));
  return answer("name");
}
Return fakeUuid(Device d, char* buf, unsigned int len) {
  std::snprintf(buf, len, "GPU-0000000%u-1111-2222-3333-444444444444", indexOf(d));
  return answer("uuid");
}
Return fakeUtil(Device d, Utilization* u) {
  return *u = {40 + indexOf(d), 12}, answer("util");
}
Return fakeMem(Device, Memory* m) {
  return *m = {150'000'000'000ull, 100'000'000'000ull, 50'000'000'000ull}, answer("mem");
}
Return fakeMemV2(Device, MemoryV2* m) {
  if (m->version != kMemoryV2Version) return kErrorInvalidArgument;  // as NVML checks it
  return *m = {kMemoryV2Version, 150'000'000'000ull, 700'000'000ull, 100'000'000'000ull,
               49'300'000'000ull},
         answer("mem");
}
Return fakeTemp(Device, int sensor, unsigned int* t) {
  return *t = sensor == kTemperatureGpu ? 45 : 0, answer("temp");
}
Return fakePower(Device, unsigned int* p) {
  return *p = 123'456, answer("power");
}
Return fakeLimit(Device, unsigned int* p) {
  return *p = 700'000, answer("limit");
}
Return fakeEnergy(Device, unsigned long long* e) {
  return *e = 9'876'543'210ull, answer("energy");
}
Return fakeClock(Device, int type, unsigned int* c) {
  *c = type == kClockSm ? 1980 : type == kClockMem ? 2619 : type == kClockGraphics ? 1975 : 0;
  return answer("clock");
}
Return fakePcie(Device, int counter, unsigned int* v) {
  *v = counter == kPcieRxBytes ? 1000 : 2000;
  return answer(counter == kPcieRxBytes ? "pcie_rx" : "pcie_tx");
}
Return fakeThrottle(Device, unsigned long long* m) {
  return *m = 0x5, answer("throttle");
}

Return fakeProcesses(Device d, unsigned int* count, ProcessInfo* infos) {
  const unsigned int capacity = *count;
  *count = g.processes;
  if (capacity < g.processes) return answer("processes_small"), kErrorInsufficientSize;
  for (unsigned int i = 0; i < g.processes; ++i) {
    infos[i] = {100 * (indexOf(d) + 1) + i, (i + 1ull) << 30, 0, 0};
    if (i + 1 == g.processes) infos[i].usedGpuMemory = kValueNotAvailable;
  }
  return answer("processes");
}

Api fakeApi() {
  Api a;
  a.init = fakeInit;
  a.shutdown = fakeShutdown;
  a.errorString = fakeErrorString;
  a.deviceGetCount = fakeCount;
  a.deviceGetHandleByIndex = fakeHandle;
  a.deviceGetName = fakeName;
  a.deviceGetUuid = fakeUuid;
  a.deviceGetUtilizationRates = fakeUtil;
  a.deviceGetMemoryInfo = fakeMem;
  a.deviceGetTemperature = fakeTemp;
  a.deviceGetPowerUsage = fakePower;
  a.deviceGetEnforcedPowerLimit = fakeLimit;
  a.deviceGetTotalEnergyConsumption = fakeEnergy;
  a.deviceGetClockInfo = fakeClock;
  a.deviceGetPcieThroughput = fakePcie;
  a.deviceGetCurrentClocksEventReasons = fakeThrottle;
  a.deviceGetComputeRunningProcesses = fakeProcesses;
  return a;
}

class NvmlSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override { g = FakeNvml{}; }
  Api api_ = fakeApi();
};

TEST_F(NvmlSamplerTest, AllFieldsGood) {
  {
    NvmlSampler sampler(api_);
    OpenStatus st = sampler.open();
    ASSERT_TRUE(st.ok) << st.reason;
    EXPECT_EQ(st.reason, "");
    ASSERT_EQ(sampler.gpus().size(), 2u);
    EXPECT_EQ(sampler.gpus()[1].name, "NVIDIA H200 #1");
    EXPECT_EQ(sampler.gpus()[1].uuid, "GPU-00000001-1111-2222-3333-444444444444");

    auto samples = sampler.sample(42);
    ASSERT_EQ(samples.size(), 2u);
    const GpuSample& s = samples[1];
    EXPECT_EQ(s.ts_ns, 42);
    EXPECT_EQ(s.gpu, 1u);
    EXPECT_EQ(s.util_gpu, 41);
    EXPECT_EQ(s.util_mem, 12);
    EXPECT_EQ(s.mem_used_bytes, 50'000'000'000ull);
    EXPECT_EQ(s.mem_total_bytes, 150'000'000'000ull);
    EXPECT_EQ(s.temp_c, 45);
    EXPECT_EQ(s.power_mw, 123'456u);
    EXPECT_EQ(s.power_limit_mw, 700'000u);
    EXPECT_EQ(s.energy_mj, 9'876'543'210ull);
    EXPECT_EQ(s.clk_sm, 1980);
    EXPECT_EQ(s.clk_mem, 2619);
    EXPECT_EQ(s.clk_gfx, 1975);
    EXPECT_EQ(s.pcie_rx_kbps, 1000u);
    EXPECT_EQ(s.pcie_tx_kbps, 2000u);
    EXPECT_EQ(s.throttle, 0x5u);
    EXPECT_EQ(s.throttle_reasons, (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
    EXPECT_TRUE(sampler.takeNewIssues().empty());
    EXPECT_EQ(g.inits, 1);
  }
  EXPECT_EQ(g.shutdowns, 1);  // the destructor shuts NVML down
}

// Where NVML has the v2 call, memory used leaves out the driver's reservation, as nvidia-smi does.
TEST_F(NvmlSamplerTest, MemoryUsedWithoutTheReservationWhereV2Exists) {
  api_.deviceGetMemoryInfoV2 = fakeMemV2;
  NvmlSampler sampler(api_);
  ASSERT_TRUE(sampler.open().ok);
  const auto samples = sampler.sample(1);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].mem_used_bytes, 49'300'000'000ull);
  EXPECT_EQ(samples[0].mem_total_bytes, 150'000'000'000ull);
  EXPECT_TRUE(sampler.takeNewIssues().empty());
}

// A driver that exports the v2 call but refuses it: v1's reading, no memory lost.
TEST_F(NvmlSamplerTest, MemoryFallsBackToV1WhenV2Refuses) {
  api_.deviceGetMemoryInfoV2 = [](Device, MemoryV2*) { return kErrorNotSupported; };
  NvmlSampler sampler(api_);
  ASSERT_TRUE(sampler.open().ok);
  const auto samples = sampler.sample(1);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].mem_used_bytes, 50'000'000'000ull);
  EXPECT_TRUE(sampler.takeNewIssues().empty());
}

TEST_F(NvmlSamplerTest, UnsupportedFieldsAreOmittedAndReportedOnce) {
  g.fail["pcie_rx"] = g.fail["pcie_tx"] = kErrorNotSupported;
  api_.deviceGetTotalEnergyConsumption = nullptr;  // an old driver without the function
  NvmlSampler sampler(api_);
  ASSERT_TRUE(sampler.open().ok);
  auto samples = sampler.sample(1);
  ASSERT_EQ(samples.size(), 2u);
  for (const GpuSample& s : samples) {
    EXPECT_FALSE(s.pcie_rx_kbps.has_value());
    EXPECT_FALSE(s.pcie_tx_kbps.has_value());
    EXPECT_FALSE(s.energy_mj.has_value());
    EXPECT_TRUE(s.power_mw.has_value());
  }
  auto issues = sampler.takeNewIssues();
  ASSERT_EQ(issues.size(), 6u);  // 3 fields x 2 GPUs
  EXPECT_EQ(issues[0].field, "energy");
  EXPECT_EQ(
      issues[0].describe(),
      "energy counter not available in this NVML version on GPU 0 (NVML: function not found)");
  EXPECT_EQ(issues[1].field, "pcie_rx");
  EXPECT_EQ(issues[1].describe(),
            "pcie rx throughput not supported on GPU 0 (NVML: Not Supported)");
  EXPECT_TRUE(issues[1].permanent);
  EXPECT_EQ(issues[5].gpu, 1u);

  for (int i = 2; i <= 11; ++i) sampler.sample(i);  // sample 11 is the next one that reads PCIe
  EXPECT_TRUE(sampler.takeNewIssues().empty());
  EXPECT_EQ(g.calls["pcie_rx"], 2);  // not supported: never asked again after the first sample
}

TEST_F(NvmlSamplerTest, PcieIsReadOnEveryNthSampleOnly) {
  g.count = 1;
  SamplerOptions options;
  options.pcie_every_n_samples = 10;
  NvmlSampler sampler(api_, options);
  ASSERT_TRUE(sampler.open().ok);
  int with_pcie = 0;
  for (int i = 0; i < 25; ++i) {
    auto samples = sampler.sample(i);
    ASSERT_EQ(samples.size(), 1u);
    EXPECT_TRUE(samples[0].power_mw.has_value());  // the fast fields are read every time
    if (samples[0].pcie_rx_kbps.has_value()) {
      ++with_pcie;
      EXPECT_EQ(i % 10, 0) << i;
    }
  }
  EXPECT_EQ(with_pcie, 3);  // samples 0, 10 and 20
  EXPECT_EQ(g.calls["pcie_rx"], 3);
  EXPECT_EQ(g.calls["pcie_tx"], 3);
}

TEST_F(NvmlSamplerTest, EnergyIsReadOnTheFirstSampleThenOncePerPeriod) {
  g.count = 1;
  SamplerOptions options;
  options.energy_period_ns = 1'000'000'000;
  NvmlSampler sampler(api_, options);
  ASSERT_TRUE(sampler.open().ok);
  std::vector<int64_t> with_energy;
  for (int i = 0; i < 25; ++i) {  // every 100 ms, starting at an arbitrary clock value
    const int64_t ts = 7'000'000'123 + int64_t{i} * 100'000'000;
    auto samples = sampler.sample(ts);
    ASSERT_EQ(samples.size(), 1u);
    EXPECT_TRUE(samples[0].power_mw.has_value());  // the cheap fields are read every time
    if (samples[0].energy_mj.has_value()) with_energy.push_back(i);
  }
  EXPECT_EQ(with_energy, (std::vector<int64_t>{0, 10, 20}));
  EXPECT_EQ(g.calls["energy"], 3);
}

TEST_F(NvmlSamplerTest, TransientErrorIsReportedOnceAndAgainAfterRecovery) {
  g.count = 1;
  g.fail["power"] = kErrorGpuIsLost;
  NvmlSampler sampler(api_);
  ASSERT_TRUE(sampler.open().ok);
  sampler.sample(1);
  auto issues = sampler.takeNewIssues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].describe(), "power usage could not be read on GPU 0 (NVML: GPU is lost)");
  EXPECT_FALSE(issues[0].permanent);
  sampler.sample(2);
  EXPECT_TRUE(sampler.takeNewIssues().empty());
  EXPECT_EQ(g.calls["power"], 2);  // still asked
  g.fail.erase("power");
  EXPECT_EQ(sampler.sample(3)[0].power_mw, 123'456u);
  g.fail["power"] = kErrorGpuIsLost;
  sampler.sample(4);
  EXPECT_EQ(sampler.takeNewIssues().size(), 1u);
}

TEST_F(NvmlSamplerTest, PcieCanBeSwitchedOff) {
  NvmlSampler sampler(api_, SamplerOptions{.pcie_throughput = false});
  ASSERT_TRUE(sampler.open().ok);
  auto s = sampler.sample(1);
  EXPECT_FALSE(s[0].pcie_rx_kbps.has_value());
  EXPECT_EQ(g.calls["pcie_rx"], 0);
  EXPECT_TRUE(sampler.takeNewIssues().empty());
}

TEST_F(NvmlSamplerTest, InitErrorStringIsPropagated) {
  g.init_ret = kErrorDriverNotLoaded;
  NvmlSampler sampler(api_);
  OpenStatus st = sampler.open();
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.reason, "NVML initialisation failed: Driver Not Loaded");
  EXPECT_TRUE(sampler.sample(1).empty());
  EXPECT_EQ(g.shutdowns, 0);  // nothing to shut down
}

TEST_F(NvmlSamplerTest, ZeroDevices) {
  g.count = 0;
  NvmlSampler sampler(api_);
  OpenStatus st = sampler.open();
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.reason, "NVML found no GPU");
  EXPECT_EQ(g.shutdowns, 1);
}

TEST_F(NvmlSamplerTest, NoGpuCanBeOpened) {
  g.fail["handle"] = 4;  // NVML_ERROR_NO_PERMISSION
  NvmlSampler sampler(api_);
  OpenStatus st = sampler.open();
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.reason, "NVML could not open any GPU (GPU 0: Unknown Error)");
}

// A fork()ed child never calls NVML once its parent has: the parent's sampler thread may hold
// NVML's locks at the fork (a flaky hang of the H200 fork test). The child's open() fails with a
// reason.
TEST_F(NvmlSamplerTest, ForkedChildDoesNotInitialiseNvmlAgain) {
  {
    NvmlSampler parent(api_);
    ASSERT_TRUE(parent.open().ok);
  }
  const int inits_before = g.inits;
  const pid_t pid = fork();
  if (pid == 0) {
    NvmlSampler child(api_);
    OpenStatus st = child.open();
    const bool said = st.reason.find("fork()ed child") != std::string::npos;
    _exit(!st.ok && said && g.inits == inits_before ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  NvmlSampler again(api_);  // the parent itself may open NVML again
  EXPECT_TRUE(again.open().ok);
}

TEST(NvmlLibrary, MissingLibraryGivesAClearReason) {
  NvmlSampler sampler("libnvidia-ml-gpufl-test-missing.so.1");
  OpenStatus st = sampler.open();
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.reason,
            "NVML not available (libnvidia-ml-gpufl-test-missing.so.1 not found: no NVIDIA driver "
            "installed?)");
}

TEST_F(NvmlSamplerTest, ProcessesOfEveryGpuWithTheirMemory) {
  NvmlSampler sampler(api_);
  ASSERT_TRUE(sampler.open().ok);
  std::vector<ProcessMemory> procs = sampler.processes();
  ASSERT_EQ(procs.size(), 6u);
  EXPECT_EQ(procs[0].gpu, 0u);
  EXPECT_EQ(procs[0].pid, 100u);
  EXPECT_EQ(procs[0].used_bytes, 1ull << 30);
  EXPECT_EQ(procs[4].gpu, 1u);
  EXPECT_EQ(procs[4].pid, 201u);
  EXPECT_EQ(procs[4].used_bytes, 2ull << 30);
  EXPECT_FALSE(procs[5].used_bytes.has_value());  // NVML_VALUE_NOT_AVAILABLE
  EXPECT_TRUE(sampler.takeNewIssues().empty());
}

TEST_F(NvmlSamplerTest, ManyProcessesGrowTheArray) {
  g.count = 1;
  g.processes = 40;  // more than the first array holds
  NvmlSampler sampler(api_);
  ASSERT_TRUE(sampler.open().ok);
  std::vector<ProcessMemory> procs = sampler.processes();
  ASSERT_EQ(procs.size(), 40u);
  EXPECT_EQ(procs[39].pid, 139u);
  EXPECT_EQ(g.calls["processes_small"], 1);
}

TEST_F(NvmlSamplerTest, ProcessListThatCannotBeReadIsAnIssue) {
  g.count = 1;
  g.fail["processes"] = kErrorNoPermission;
  NvmlSampler sampler(api_);
  ASSERT_TRUE(sampler.open().ok);
  EXPECT_TRUE(sampler.processes().empty());
  auto issues = sampler.takeNewIssues();
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].field, "processes");
  EXPECT_FALSE(issues[0].permanent);
  api_.deviceGetComputeRunningProcesses = nullptr;  // an NVML without _v2/_v3
  NvmlSampler old(api_);
  ASSERT_TRUE(old.open().ok);
  EXPECT_TRUE(old.processes().empty());
  EXPECT_EQ(old.takeNewIssues().at(0).describe(),
            "process list not available in this NVML version on GPU 0 (NVML: function not found)");
}

TEST(NvmlLibrary, RealLibraryOrClearReason) {
  NvmlSampler sampler;
  OpenStatus st = sampler.open();
  if (void* h = dlopen(kLibraryName, RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    // A driver is installed: open either works or says why (e.g. no GPU in this container).
    if (!st.ok) {
      EXPECT_FALSE(st.reason.empty());
      return;
    }
    auto samples = sampler.sample(1);
    ASSERT_EQ(samples.size(), sampler.gpus().size());
    for (const GpuSample& s : samples) {
      std::printf(
          "gpu %u %s: util %d%% mem %llu/%llu temp %d power %llu/%llu mW sm %d MHz mem %d MHz "
          "throttle 0x%llx\n",
          s.gpu, sampler.gpus()[s.gpu].name.c_str(), s.util_gpu.value_or(-1),
          static_cast<unsigned long long>(s.mem_used_bytes.value_or(0)),
          static_cast<unsigned long long>(s.mem_total_bytes.value_or(0)), s.temp_c.value_or(-1),
          static_cast<unsigned long long>(s.power_mw.value_or(0)),
          static_cast<unsigned long long>(s.power_limit_mw.value_or(0)), s.clk_sm.value_or(-1),
          s.clk_mem.value_or(-1), static_cast<unsigned long long>(s.throttle.value_or(0)));
      EXPECT_TRUE(s.mem_total_bytes.has_value());
      EXPECT_TRUE(s.temp_c.has_value());
      EXPECT_TRUE(s.clk_sm.has_value());
    }
    for (const FieldIssue& i : sampler.takeNewIssues())
      std::printf("issue: %s\n", i.describe().c_str());
    return;
  }
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.reason,
            "NVML not available (libnvidia-ml.so.1 not found: no NVIDIA driver installed?)");
}

TEST(ThrottleReasons, NamesEveryKnownBit) {
  EXPECT_TRUE(throttleReasonNames(0).empty());
  EXPECT_EQ(throttleReasonNames(0x1ff),
            (std::vector<std::string>{"gpu_idle", "applications_clocks_setting", "sw_power_cap",
                                      "hw_slowdown", "sync_boost", "sw_thermal_slowdown",
                                      "hw_thermal_slowdown", "hw_power_brake_slowdown",
                                      "display_clocks_setting"}));
  EXPECT_EQ(throttleReasonNames(0x8000000000000040ull),
            (std::vector<std::string>{"hw_thermal_slowdown", "unknown_0x8000000000000000"}));
}

}  // namespace
}  // namespace gpufl::nvml
