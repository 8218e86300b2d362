#include "report/aggregate/drop_advice.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "gpufl/init_options.hpp"

namespace gpufl::report {
namespace {

std::set<std::string> realOptions() {
  std::set<std::string> envs;
#define GFL_ENV_(type, name, default_value, env, doc) envs.insert(env);
  GFL_INIT_OPTIONS(GFL_ENV_)
#undef GFL_ENV_
  return envs;
}

TEST(DropAdvice, NamesOnlyRealOptionsAndNoBufferSize) {
  const std::string text = droppedAdvice({{"activity", 2470000},
                                          {"activity_buffers_refused", 5},
                                          {"scope", 7},
                                          {"system", 3},
                                          {"launch", 2},
                                          {"write", 9}});
  EXPECT_EQ(text.find("larger buffers"), std::string::npos) << text;
  EXPECT_NE(text.find("2,470,017 records"), std::string::npos) << text;  // write is not a buffer
  const std::set<std::string> real = realOptions();
  const std::regex option("GPUFL_[A-Z_]+");
  size_t named = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), option), end; it != end; ++it, ++named)
    EXPECT_TRUE(real.count(it->str())) << it->str() << " is no option";
  EXPECT_GT(named, 0u);
  EXPECT_NE(text.find("as above"), std::string::npos) << text;  // one remedy said once
}

TEST(DropAdvice, NothingDroppedSaysNothing) {
  EXPECT_EQ(droppedAdvice({{"scope", 0}, {"write", 4}}), "");
}

}  // namespace
}  // namespace gpufl::report
