// When gpufl sets NVTX_INJECTION64_PATH, when it leaves it, and what the session note says.
#include "cuda/nvtx_injection.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpufl::cuda {
namespace {

namespace fs = std::filesystem;

class NvtxInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpufl_nvtx_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    cupti_ = touch("libcupti.so.13");
    other_ = touch("libother.so");
    inject_ = touch("libgpufl_inject.so");
    fs::create_symlink(cupti_, dir_ / "libcupti.so");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string touch(const char* name) {
    std::ofstream(dir_ / name) << name;
    return (dir_ / name).string();
  }
  fs::path dir_;
  std::string cupti_, other_, inject_;
};

TEST_F(NvtxInjectionTest, UnsetIsSetToTheLoadedLibcuptiWithTheEarlyCallCaveat) {
  const NvtxInjectionPlan p = planNvtxInjection(nullptr, cupti_, nullptr);
  EXPECT_TRUE(p.set_env);
  EXPECT_EQ(p.value, cupti_);
  EXPECT_EQ(p.status, "on");
  EXPECT_NE(p.reason.find("before init"), std::string::npos) << p.reason;
  EXPECT_TRUE(planNvtxInjection("", cupti_, nullptr).set_env);  // empty = unset
}

TEST_F(NvtxInjectionTest, UnknownLibcuptiFileCannotBeNamed) {
  const NvtxInjectionPlan p = planNvtxInjection(nullptr, "", nullptr);
  EXPECT_FALSE(p.set_env);
  EXPECT_EQ(p.status, "degraded");
}

TEST_F(NvtxInjectionTest, AlreadyNamingThisLibcuptiOrGpuflTraceIsOn) {
  const std::string link = (dir_ / "libcupti.so").string();  // another name, same file
  NvtxInjectionPlan p = planNvtxInjection(link.c_str(), cupti_, nullptr);
  EXPECT_FALSE(p.set_env);
  EXPECT_EQ(p.status, "on");
  p = planNvtxInjection(inject_.c_str(), cupti_, inject_.c_str());
  EXPECT_FALSE(p.set_env);
  EXPECT_EQ(p.status, "on");
  EXPECT_NE(p.reason.find("gpufl trace"), std::string::npos) << p.reason;
}

TEST_F(NvtxInjectionTest, AnotherToolsLibraryIsLeftAloneAndSaidSo) {
  NvtxInjectionPlan p = planNvtxInjection(other_.c_str(), cupti_, inject_.c_str());
  EXPECT_FALSE(p.set_env);
  EXPECT_EQ(p.status, "degraded");
  EXPECT_NE(p.reason.find(other_), std::string::npos);
  EXPECT_NE(p.reason.find(cupti_), std::string::npos);
  // Our injection library only counts under gpufl trace.
  p = planNvtxInjection(inject_.c_str(), cupti_, nullptr);
  EXPECT_EQ(p.status, "degraded");
  p = planNvtxInjection("/no/such/libcupti.so", cupti_, nullptr);
  EXPECT_EQ(p.status, "degraded");
}

TEST_F(NvtxInjectionTest, ConfigureSetsTheVariableOnlyWhenUnset) {
  const char* saved = std::getenv("NVTX_INJECTION64_PATH");
  const std::string old = saved != nullptr ? saved : "";
  unsetenv("NVTX_INJECTION64_PATH");
  NvtxInjectionPlan p = configureNvtxInjection(cupti_, false);
  EXPECT_EQ(p.status, "on");
  ASSERT_NE(std::getenv("NVTX_INJECTION64_PATH"), nullptr);
  EXPECT_EQ(std::string(std::getenv("NVTX_INJECTION64_PATH")), cupti_);
  setenv("NVTX_INJECTION64_PATH", other_.c_str(), 1);
  p = configureNvtxInjection(cupti_, false);
  EXPECT_EQ(p.status, "degraded");
  EXPECT_EQ(std::string(std::getenv("NVTX_INJECTION64_PATH")), other_);
  if (saved != nullptr)
    setenv("NVTX_INJECTION64_PATH", old.c_str(), 1);
  else
    unsetenv("NVTX_INJECTION64_PATH");
}

TEST(NvtxSameFile, ComparesFilesNotNames) {
  EXPECT_FALSE(sameFile("", ""));
  EXPECT_FALSE(sameFile("/no/such/a", "/no/such/a"));
  EXPECT_TRUE(sameFile("/", "/."));
}

}  // namespace
}  // namespace gpufl::cuda
