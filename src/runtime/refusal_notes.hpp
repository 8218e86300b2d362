// Notes that say tracing or a deep engine was refused, turned into the line a user can act on.
//
// An engine that fails writes a note in CUPTI's or the driver's words ("cuptiPCSamplingEnable:
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (...)"). The session keeps those words in the log and adds
// what to change (doctor::engineRefusalReason: the driver's profiling restriction, root,
// CAP_SYS_ADMIN, a container, a missing libcupti), and prints the line once per feature on stderr,
// so `gpufl trace` and `gpufl.init` say why without a `gpufl doctor` run.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpufl::runtime {

// The engine a note's feature names ("PcSampling" for pc_sampling, "tracing" for cupti_activity)
// when the note turns it off; nullopt for every other note.
std::optional<std::string_view> refusedEngine(std::string_view feature, std::string_view status);

// The note's reason with what to change appended: engineRefusalReason's line without its
// "<engine> refused: " head (the report names the feature already). A failure of no known kind is
// returned as it is.
std::string reasonWithAdvice(std::string_view engine, std::string_view reason);

}  // namespace gpufl::runtime
