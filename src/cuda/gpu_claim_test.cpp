#include "cuda/gpu_claim.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace gpufl::cuda {
namespace {

class GpuClaimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpufl_claim_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(GpuClaimTest, SecondClaimOnTheSameGpuIsRefusedWithTheHolder) {
  GpuClaim first, second;
  std::string why;
  ASSERT_TRUE(first.claim("pc_sampling", "0000:19:00.0", &why, dir_));
  EXPECT_TRUE(first.held());
  EXPECT_FALSE(second.claim("pc_sampling", "0000:19:00.0", &why, dir_));
  EXPECT_FALSE(second.held());
  EXPECT_NE(why.find("pid " + std::to_string(getpid())), std::string::npos) << why;
  EXPECT_NE(why.find("0000:19:00.0"), std::string::npos) << why;
}

TEST_F(GpuClaimTest, OtherGpusAndFeaturesAreIndependent) {
  GpuClaim a, b, c;
  std::string why;
  ASSERT_TRUE(a.claim("pc_sampling", "GPU-1", &why, dir_));
  EXPECT_TRUE(b.claim("pc_sampling", "GPU-2", &why, dir_));
  EXPECT_TRUE(c.claim("other", "GPU-1", &why, dir_));
}

TEST_F(GpuClaimTest, ReleaseAndDestructionHandTheGpuOn) {
  std::string why;
  {
    GpuClaim first;
    ASSERT_TRUE(first.claim("pc_sampling", "gpu/0", &why, dir_));  // '/' does not escape dir_
    first.release();
    GpuClaim second;
    EXPECT_TRUE(second.claim("pc_sampling", "gpu/0", &why, dir_));
  }
  GpuClaim third;
  EXPECT_TRUE(third.claim("pc_sampling", "gpu/0", &why, dir_));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/gpufl-pc_sampling-gpu_0.lock"));
}

TEST_F(GpuClaimTest, AnotherProcessSeesTheClaimUntilItsHolderDies) {
  std::string why;
  int ready[2], done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // holds the claim until told to exit (without releasing it)
    GpuClaim held;
    std::string ignored;
    const char ok = held.claim("pc_sampling", "GPU-9", &ignored, dir_) ? 'y' : 'n';
    (void)!write(ready[1], &ok, 1);
    char c;
    (void)!read(done[0], &c, 1);
    _exit(0);
  }
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  GpuClaim mine;
  EXPECT_FALSE(mine.claim("pc_sampling", "GPU-9", &why, dir_));
  EXPECT_NE(why.find("pid " + std::to_string(child)), std::string::npos) << why;
  (void)!write(done[1], "x", 1);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(mine.claim("pc_sampling", "GPU-9", &why, dir_)) << why;
}

}  // namespace
}  // namespace gpufl::cuda
