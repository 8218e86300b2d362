// Session identifiers: a random UUID (version 4) and its short form, the `sid` every record
// carries.
#pragma once

#include <string>
#include <string_view>

namespace gpufl::core {

// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", lower-case hex, from the kernel's random source
// (getrandom), with a fallback that mixes std::random_device, the clock and the pid when that is
// unavailable.
std::string uuidV4();

// The first 8 hex digits of a UUID (the log's `sid`).
std::string sidOf(std::string_view uuid);

// True when `s` has the UUID shape above (any version).
bool isUuid(std::string_view s);

}  // namespace gpufl::core
