// From facts to verdicts: a pure function, so every piece of advice the doctor gives is tested on
// the CPU with facts built by hand (diagnose_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "doctor/doctor_facts.hpp"

namespace gpufl::doctor {

enum class Verdict {
  Works,     // tried: a kernel ran under the engine and the engine stayed on
  Expected,  // not tried (no kernel run), and nothing seen stands in its way
  Refused,   // will not work here: `reason` says why, `fix` what to change
};
const char* verdictName(Verdict v);  // "works", "untested", "refused"

struct EngineVerdict {
  std::string engine;
  Verdict verdict = Verdict::Expected;
  std::string reason;  // why refused, or what was seen ("1 kernel traced")
  std::string fix;     // what to change ("" when nothing)
};

// A known problem of what was found (an old CUPTI, an old driver).
struct Problem {
  std::string what;
  std::string fix;
};

struct Diagnosis {
  std::vector<EngineVerdict> engines;  // kEngines order
  std::vector<Problem> problems;
  std::string summary;  // one line: the overall verdict
};

Diagnosis diagnose(const DoctorFacts& facts);

// CUPTI's API versions (cuptiGetVersion) use xxyyzz from CUDA 13.0 on: 130001 is 13.0 Update 1.
// Long activity tracing grows in CPU use over hours before 13.4 Update 1, taken as 130401.
inline constexpr uint32_t kCuptiCpuGrowthFixed = 130401;
// "13.0 Update 1" for 130001, "13.4" for 130400; the number itself below 130000.
std::string cuptiVersionText(uint32_t api_version);
// "13.0" for 13000 (cuDriverGetVersion's CUDA version).
std::string cudaVersionText(int version);

}  // namespace gpufl::doctor
