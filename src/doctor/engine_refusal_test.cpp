#include "doctor/engine_refusal.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gpufl::doctor {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(EngineRefusal, ReadsTheDriversProfilingRestriction) {
  EXPECT_EQ(parseProfilingAdminOnly(
                "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nRmLogonRC: 1\n"),
            true);
  EXPECT_EQ(parseProfilingAdminOnly("RmProfilingAdminOnly: 0\n"), false);
  EXPECT_EQ(parseProfilingAdminOnly("RmLogonRC: 1\n"), std::nullopt);
  EXPECT_EQ(parseProfilingAdminOnly("RmProfilingAdminOnly: yes\n"), std::nullopt);
  EXPECT_EQ(parseProfilingAdminOnly(""), std::nullopt);
}

TEST(EngineRefusal, ReadsCapSysAdminFromTheEffectiveSet) {
  EXPECT_TRUE(parseCapSysAdmin("CapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n"));
  // Docker's default set: no CAP_SYS_ADMIN (bit 21).
  EXPECT_FALSE(parseCapSysAdmin("CapEff:\t00000000a80425fb\n"));
  EXPECT_TRUE(parseCapSysAdmin("CapEff:\t0000000000200000\n"));
  EXPECT_FALSE(parseCapSysAdmin("CapEff:\tzz\n"));
  EXPECT_FALSE(parseCapSysAdmin("CapPrm:\t000001ffffffffff\n"));
}

TEST(EngineRefusal, NamesTheContainerRuntime) {
  EXPECT_EQ(containerFromCgroup("0::/system.slice/docker-3f1c.scope\n"), "docker");
  EXPECT_EQ(containerFromCgroup("0::/kubepods/burstable/pod1/abc\n"), "kubernetes");
  EXPECT_EQ(containerFromCgroup("0::/init.scope\n"), "");
}

TEST(EngineRefusal, ReadsAFakeTree) {
  fs::path root = fs::temp_directory_path() / ("gpufl_refusal_" + std::to_string(::getpid()));
  fs::remove_all(root);
  write(root / "proc/driver/nvidia/params", "RmProfilingAdminOnly: 1\n");
  write(root / "proc/self/status", "Name:\tgpufl\nCapEff:\t00000000a80425fb\n");
  write(root / ".dockerenv", "");
  PermissionFacts p = readPermissionFacts(root.string(), 0);
  EXPECT_EQ(p.profiling_admin_only, true);
  EXPECT_TRUE(p.root);
  EXPECT_FALSE(p.cap_sys_admin);
  EXPECT_EQ(p.container, "docker");

  fs::remove(root / ".dockerenv");
  fs::remove_all(root / "proc/driver");
  write(root / "proc/1/cgroup", "0::/\n");
  p = readPermissionFacts(root.string(), 1000);
  EXPECT_EQ(p.profiling_admin_only, std::nullopt);
  EXPECT_FALSE(p.root);
  EXPECT_EQ(p.container, "");
  fs::remove_all(root);
}

TEST(EngineRefusal, ClassifiesWhatTheEnginesSay) {
  EXPECT_EQ(classifyFailure("cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (...)"),
            FailureKind::Permission);
  EXPECT_EQ(classifyFailure("no NVIDIA driver (libcuda.so.1 not found)"), FailureKind::NoDriver);
  EXPECT_EQ(classifyFailure("libcupti.so.13 not found (looked in ...)"), FailureKind::NoCupti);
  EXPECT_EQ(classifyFailure("libcupti too old: cuptiSassMetricsSetConfig missing (x)"),
            FailureKind::OldCupti);
  EXPECT_EQ(classifyFailure("cuptiSubscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"),
            FailureKind::OtherProfiler);
  EXPECT_EQ(classifyFailure("the GPU samples one process at a time and pid 12 holds it"),
            FailureKind::GpuBusy);
  EXPECT_EQ(classifyFailure(
                "cuptiActivityEnable: CUPTI_ERROR_UNKNOWN (no GPU or NVIDIA driver available)"),
            FailureKind::NoGpu);
  EXPECT_EQ(classifyFailure("cuptiPCSamplingEnable: CUPTI_ERROR_NOT_SUPPORTED"),
            FailureKind::Unsupported);
  EXPECT_EQ(classifyFailure("something new"), FailureKind::Other);
}

TEST(EngineRefusal, OneLineWithWhatToChange) {
  PermissionFacts user{true, false, false, ""};
  std::string line = engineRefusalReason(
      "PcSampling", "cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", user);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.rfind("PcSampling refused: the driver restricts GPU performance counters", 0), 0u)
      << line;
  EXPECT_TRUE(has(line, "NVreg_RestrictProfilingToAdminUsers=0")) << line;
  EXPECT_TRUE(has(line, "(cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)")) << line;

  PermissionFacts unknown{std::nullopt, false, false, "kubernetes"};
  line = engineRefusalReason("RangeProfiler", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", unknown);
  EXPECT_TRUE(has(line, "could not be read")) << line;
  EXPECT_TRUE(has(line, "in a container (kubernetes)")) << line;

  line = engineRefusalReason("SassMetrics", "libcupti.so.13 not found (looked in x)", user);
  EXPECT_TRUE(has(line, "GPUFL_CUPTI_DIRS")) << line;
  line = engineRefusalReason("None", "a brand new failure", user);
  EXPECT_EQ(line, "None refused: a brand new failure (gpufl doctor checks this machine)");
}

TEST(EngineRefusal, NoPermissionAdviceWhenAllowed) {
  EXPECT_EQ(permissionAdvice({false, false, false, ""}), "");
  EXPECT_EQ(permissionAdvice({true, true, true, ""}), "");
  EXPECT_NE(permissionAdvice({true, true, false, "docker"}), "");
}

}  // namespace
}  // namespace gpufl::doctor
