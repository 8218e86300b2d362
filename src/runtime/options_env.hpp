// InitOptions as a session uses them: environment overrides (for `gpufl trace` injection),
// defaults, validation, and the `options` object of session_start.
//
// Environment: each option of include/gpufl/init_options.hpp has its GPUFL_* variable there (the
// table's fourth column; docs/runtime.md lists them), which wins over the value passed to init;
// unset or empty = no override. Booleans read 1/0, true/false, yes/no, on/off; engines read their
// names with case, '_' and '-' ignored; integers are decimal, 0 and up. Besides the table:
//   GPUFL_DISABLE         1/true/yes/on: init() records nothing and returns false (a kill switch
//   for
//                         always-on deployments, and how the oracle runs our examples under ncu)
// A value that does not parse leaves the option as it was and is reported as an OptionIssue (the
// session writes it as a note: feature "options", status "degraded"); nothing here aborts or
// throws.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/events.hpp"
#include "gpufl/gpufl.hpp"

namespace gpufl::runtime {

struct OptionIssue {
  std::string option;   // "GPUFL_SAMPLE_RATE_MS", "system_sample_rate_ms", ...
  std::string message;  // what was wrong and what is used instead
};

// Returns the value of an environment variable, or nullptr when unset. Injectable for tests.
using EnvLookup = std::function<const char*(const char* name)>;
EnvLookup processEnvironment();

// Applies the GPUFL_* overrides to `options`; appends one issue per value that could not be used.
void applyEnvOverrides(InitOptions& options, const EnvLookup& env,
                       std::vector<OptionIssue>* issues);

// True when GPUFL_DISABLE holds a true boolean. A value that does not parse is not a request to
// disable: it is returned in `*bad_value` so init can say it was ignored.
bool disabledByEnvironment(const EnvLookup& env, std::string* bad_value);

// Fills what init leaves to defaults (log_path "" -> "./<app_name>", app_name "" -> "gpufl") and
// clamps values out of range, with an issue for each clamp.
void resolveOptions(InitOptions& options, std::vector<OptionIssue>* issues);

// session_start.options: option name -> JSON text of its value.
std::map<std::string, std::string> optionsJson(const InitOptions& options);

const char* profilingEngineName(ProfilingEngine engine);

// Parsers (exposed for tests).
std::optional<bool> parseBool(std::string_view text);
std::optional<ProfilingEngine> parseEngine(std::string_view text);
std::optional<long long> parseInt(std::string_view text, long long min, long long max);
std::string jsonString(std::string_view text);  // quoted and escaped JSON string

}  // namespace gpufl::runtime
