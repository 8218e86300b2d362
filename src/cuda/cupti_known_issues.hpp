// What is known wrong in the CUPTI a session runs on, where it matters to a tracer left on for
// days: one line each, for the health record (cupti_issues) and the report's Trace Health. From
// CUPTI's release notes; keyed by cuptiGetVersion's API version (cupti_version.h: before CUDA 13.0
// small integers, 28 for 12.9 Update 1; from 13.0 on xxyyzz, 130001 for 13.0 Update 1, whose last
// two digits "do not necessarily match the CUDA Toolkit update version": a fix named by a toolkit
// update is taken to start at that update's xxyy01).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpufl::cuda {

// `sessions`: how many traced sessions this process has begun, this one included (from the second
// on, CUPTI's timestamp callback was registered again).
std::vector<std::string> cuptiKnownIssues(uint32_t api_version, int sessions);

// The toolkit release an API version names, for messages: "13.0 Update 1", "13.4", "API 28".
std::string cuptiReleaseName(uint32_t api_version);

}  // namespace gpufl::cuda
