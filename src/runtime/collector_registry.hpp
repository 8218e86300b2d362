// The collector factories a session starts with: the built-in ones (builtin_collectors.cpp) and
// those registered at run time (tests, bindings). The seam itself (Collector, SessionContext) is
// core/collector.hpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/collector.hpp"

namespace gpufl::runtime {

// Adds a factory for sessions started afterwards; a second registration under the same name
// replaces the first. Thread-safe.
void registerCollectorFactory(std::string name, core::CollectorFactory factory);
void unregisterCollectorFactory(const std::string& name);
// Built-in factories (builtin_collectors.cpp) first, then run-time registrations, in registration
// order.
std::vector<std::pair<std::string, core::CollectorFactory>> collectorFactories();

// Defined in builtin_collectors.cpp: registers the built-in factories through `add`.
void registerBuiltinCollectors(void (*add)(std::string, core::CollectorFactory));

}  // namespace gpufl::runtime
