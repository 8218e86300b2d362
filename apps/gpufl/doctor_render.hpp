// `gpufl doctor`'s output: one screen of text, or one JSON object (--json) with the same facts and
// verdicts, for scripts and CI.
#pragma once

#include <ostream>

#include "doctor/diagnose.hpp"
#include "doctor/doctor_facts.hpp"

namespace gpufl::cli {

void renderDoctorText(std::ostream& out, const doctor::DoctorFacts& facts,
                      const doctor::Diagnosis& d);
void renderDoctorJson(std::ostream& out, const doctor::DoctorFacts& facts,
                      const doctor::Diagnosis& d);

}  // namespace gpufl::cli
