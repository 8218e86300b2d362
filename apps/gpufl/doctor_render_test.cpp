#include "doctor_render.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>

namespace gpufl::cli {
namespace {

doctor::DoctorFacts someFacts() {
  doctor::DoctorFacts f;
  f.build = {"0.1.0", true, "NVIDIA pip packages at /x \"quoted\" (CUDA 13000, CUPTI API 130001)"};
  f.driver.library = {true, "/usr/lib/libcuda.so.1", "the NVIDIA driver", "580.95.05", ""};
  f.driver.cuda_version = 13000;
  f.driver.release = "580.95.05";
  f.driver.gpus = {{"NVIDIA H200", 9, 0}};
  f.nvml = {true, "/usr/lib/libnvidia-ml.so.1", "the NVIDIA driver", "580.95.05", ""};
  f.cupti.library = {true, "/site/nvidia/cu13/lib/libcupti.so.13",
                     "the nvidia-cuda-cupti 13.0.85 pip wheel", "130001", ""};
  f.cupti.api_version = 130001;
  f.cupti.engine_missing["RangeProfiler"] = "libcupti too old: cuptiRangeProfilerEnable missing";
  f.permissions = {true, false, false, "docker"};
  f.kernels_tried = true;
  doctor::EngineRun run;
  run.engine = "None";
  run.ran = true;
  run.kernels = 3;
  run.notes["cupti_activity"] = {"on", "kernels\tand \x01 control"};
  f.runs.push_back(run);
  return f;
}

TEST(DoctorRender, JsonParsesAndCarriesTheVerdicts) {
  const doctor::DoctorFacts f = someFacts();
  const doctor::Diagnosis d = doctor::diagnose(f);
  std::ostringstream out;
  renderDoctorJson(out, f, d);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out.str()).get(doc), simdjson::SUCCESS) << out.str();
  EXPECT_EQ(std::string_view(doc["gpufl_version"]), "0.1.0");
  EXPECT_TRUE(bool(doc["build"]["cuda_backend"]));
  EXPECT_EQ(int64_t(doc["cupti"]["api_version"]), 130001);
  EXPECT_EQ(std::string_view(doc["cupti"]["engine_missing"]["RangeProfiler"]),
            "libcupti too old: cuptiRangeProfilerEnable missing");
  EXPECT_TRUE(bool(doc["permissions"]["profiling_admin_only"]));
  EXPECT_EQ(std::string_view(doc["permissions"]["container"]), "docker");
  EXPECT_EQ(int64_t(doc["injection"]["runs"].at(0)["kernels"]), 3);
  simdjson::dom::array engines = doc["engines"];
  ASSERT_EQ(engines.size(), 5u);
  EXPECT_EQ(std::string_view(engines.at(0)["verdict"]), "works");
  EXPECT_EQ(std::string_view(engines.at(4)["verdict"]), "refused");
  EXPECT_EQ(std::string_view(doc["summary"]), d.summary);
  EXPECT_EQ(doc["problems"].get_array().size(), 1u);
}

TEST(DoctorRender, ScreenShowsEveryFactAndEngine) {
  const doctor::DoctorFacts f = someFacts();
  std::ostringstream out;
  renderDoctorText(out, f, doctor::diagnose(f));
  const std::string s = out.str();
  for (const char* part :
       {"CUDA backend built", "580.95.05, CUDA 13.0: /usr/lib/libcuda.so.1",
        "0: NVIDIA H200 (sm_90)",
        "CUPTI 13.0 Update 1: /site/nvidia/cu13/lib/libcupti.so.13 (the nvidia-cuda-cupti 13.0.85 "
        "pip wheel)",
        "restricted to admin users (RmProfilingAdminOnly: 1); this process is not admin",
        "container     docker", "! CUPTI 13.0 Update 1 predates 13.4 Update 1",
        "None                works", "RangeProfiler       refused", "verdict: "})
    EXPECT_NE(s.find(part), std::string::npos) << "missing: " << part << "\n" << s;
  // One screen.
  EXPECT_LE(std::count(s.begin(), s.end(), '\n'), 24) << s;
}

}  // namespace
}  // namespace gpufl::cli
