#include "runtime/options_env.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>

namespace gpufl::runtime {
namespace {

std::string lowerAlnum(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

constexpr ProfilingEngine kEngines[] = {
    ProfilingEngine::None, ProfilingEngine::PcSampling, ProfilingEngine::SassMetrics,
    ProfilingEngine::PcSamplingWithSass, ProfilingEngine::RangeProfiler};

const char* boolText(bool b) {
  return b ? "true" : "false";
}

}  // namespace

EnvLookup processEnvironment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

const char* profilingEngineName(ProfilingEngine engine) {
  return engineName(engine);
}

std::optional<bool> parseBool(std::string_view text) {
  const std::string t = lowerAlnum(trim(text));
  if (t == "1" || t == "true" || t == "yes" || t == "on") return true;
  if (t == "0" || t == "false" || t == "no" || t == "off") return false;
  return std::nullopt;
}

std::optional<ProfilingEngine> parseEngine(std::string_view text) {
  const std::string t = lowerAlnum(trim(text));
  for (ProfilingEngine e : kEngines)
    if (t == lowerAlnum(profilingEngineName(e))) return e;
  return std::nullopt;
}

std::optional<long long> parseInt(std::string_view text, long long min, long long max) {
  text = trim(text);
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    return std::nullopt;
  return v;
}

std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(ch);  // UTF-8 passes through; invalid bytes are the LogWriter's to sanitise
        }
    }
  }
  out.push_back('"');
  return out;
}

namespace {

// One environment value parsed into an option of its type: false (the option unchanged) when it
// does not parse. Integers are 0..the type's maximum unless the option has a narrower range.
long long maxValue(std::string_view option, long long type_max) {
  if (option == "system_sample_rate_ms")
    return 3'600'000;  // one hour: more is a typo, not a period
  return type_max;
}

bool parseValue(std::string_view text, std::string_view, std::string& out) {
  out = std::string(text);
  return true;
}
bool parseValue(std::string_view text, std::string_view, bool& out) {
  auto b = parseBool(text);
  if (b) out = *b;
  return b.has_value();
}
bool parseValue(std::string_view text, std::string_view option, int& out) {
  auto n = parseInt(text, 0, maxValue(option, std::numeric_limits<int>::max()));
  if (n) out = static_cast<int>(*n);
  return n.has_value();
}
bool parseValue(std::string_view text, std::string_view option, std::uint64_t& out) {
  auto n = parseInt(text, 0, maxValue(option, std::numeric_limits<long long>::max()));
  if (n) out = static_cast<std::uint64_t>(*n);
  return n.has_value();
}
bool parseValue(std::string_view text, std::string_view, ProfilingEngine& out) {
  auto e = parseEngine(text);
  if (e) out = *e;
  return e.has_value();
}

// What a value of this type must look like, for the issue of a value that did not parse.
std::string expected(std::string_view, const bool&) {
  return "is not a boolean (1/0, true/false, yes/no, on/off)";
}
std::string expected(std::string_view option, const int&) {
  return "is not an integer in 0.." +
         std::to_string(maxValue(option, std::numeric_limits<int>::max()));
}
std::string expected(std::string_view option, const std::uint64_t&) {
  return "is not an integer in 0.." +
         std::to_string(maxValue(option, std::numeric_limits<long long>::max()));
}
std::string expected(std::string_view, const ProfilingEngine&) {
  return "is not one of None, PcSampling, SassMetrics, PcSamplingWithSass, RangeProfiler";
}
std::string expected(std::string_view, const std::string&) {
  return "";  // never used: every text is a string
}

// The value as the JSON text of session_start.options, and as an issue's "using ...".
std::string jsonValue(const std::string& v) {
  return jsonString(v);
}
std::string jsonValue(bool v) {
  return boolText(v);
}
std::string jsonValue(int v) {
  return std::to_string(v);
}
std::string jsonValue(std::uint64_t v) {
  return std::to_string(v);
}
std::string jsonValue(ProfilingEngine v) {
  return jsonString(profilingEngineName(v));
}

std::string plainValue(bool v) {
  return boolText(v);
}
std::string plainValue(int v) {
  return std::to_string(v);
}
std::string plainValue(std::uint64_t v) {
  return std::to_string(v);
}
std::string plainValue(ProfilingEngine v) {
  return profilingEngineName(v);
}
std::string plainValue(const std::string& v) {
  return v;
}

}  // namespace

void applyEnvOverrides(InitOptions& options, const EnvLookup& env,
                       std::vector<OptionIssue>* issues) {
  auto apply = [&](const char* option, const char* name, auto& member) {
    const char* v = env ? env(name) : nullptr;
    if (v == nullptr || *v == '\0') return;  // unset or empty: no override
    if (parseValue(v, option, member)) return;
    if (issues != nullptr)
      issues->push_back({name, std::string(name) + "='" + v + "' " + expected(option, member) +
                                   "; using " + plainValue(member)});
  };
#define GFL_APPLY_ENV_(type, name, default_value, env_name, doc) \
  apply(#name, env_name, options.name);
  GFL_INIT_OPTIONS(GFL_APPLY_ENV_)
#undef GFL_APPLY_ENV_
}

bool disabledByEnvironment(const EnvLookup& env, std::string* bad_value) {
  const char* v = env ? env("GPUFL_DISABLE") : nullptr;
  if (v == nullptr || *v == '\0') return false;
  if (auto b = parseBool(v)) return *b;
  if (bad_value != nullptr) *bad_value = v;
  return false;
}

void resolveOptions(InitOptions& options, std::vector<OptionIssue>* issues) {
  auto issue = [&](const char* name, const std::string& message) {
    if (issues != nullptr) issues->push_back({name, message});
  };
  if (options.app_name.empty()) options.app_name = "gpufl";
  if (options.log_path.empty()) {
    std::string base = options.app_name;
    for (char& c : base)
      if (c == '/' || c == '\0') c = '_';
    options.log_path = "./" + base;
  }
  if (options.system_sample_rate_ms < 0) {
    issue("system_sample_rate_ms",
          "system_sample_rate_ms=" + std::to_string(options.system_sample_rate_ms) +
              " is negative; using 0 (off)");
    options.system_sample_rate_ms = 0;
  }
  if (options.hang_timeout_s < 0) {
    issue("hang_timeout_s", "hang_timeout_s=" + std::to_string(options.hang_timeout_s) +
                                " is negative; using 0 (no hang watchdog)");
    options.hang_timeout_s = 0;
  }
  if (options.deep_launches_per_kernel < 0) {
    issue("deep_launches_per_kernel",
          "deep_launches_per_kernel=" + std::to_string(options.deep_launches_per_kernel) +
              " is negative; using 0");
    options.deep_launches_per_kernel = 0;
  }
  for (auto [name, value, what] :
       {std::tuple{"health_period_s", &options.health_period_s, "health records only at the end"},
        std::tuple{"max_cpu_pct", &options.max_cpu_pct, "no limit"},
        std::tuple{"max_memory_mb", &options.max_memory_mb, "no limit"}}) {
    if (*value >= 0) continue;
    issue(name, std::string(name) + "=" + std::to_string(*value) + " is negative; using 0 (" +
                    what + ")");
    *value = 0;
  }
}

std::map<std::string, std::string> optionsJson(const InitOptions& o) {
  std::map<std::string, std::string> out;
#define GFL_OPTION_JSON_(type, name, default_value, env, doc) out[#name] = jsonValue(o.name);
  GFL_INIT_OPTIONS(GFL_OPTION_JSON_)
#undef GFL_OPTION_JSON_
  return out;
}

}  // namespace gpufl::runtime
