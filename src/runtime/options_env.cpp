#include "runtime/options_env.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

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

const char* profilingEngineName(ProfilingEngine engine) { return engineName(engine); }

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

void applyEnvOverrides(InitOptions& options, const EnvLookup& env,
                       std::vector<OptionIssue>* issues) {
  auto value = [&](const char* name) -> std::optional<std::string_view> {
    const char* v = env ? env(name) : nullptr;
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string_view(v);
  };
  auto issue = [&](const char* name, std::string_view v, const std::string& what) {
    if (issues != nullptr)
      issues->push_back({name, std::string(name) + "='" + std::string(v) + "' " + what});
  };
  if (auto v = value("GPUFL_LOG_PATH")) options.log_path = std::string(*v);
  if (auto v = value("GPUFL_APP_NAME")) options.app_name = std::string(*v);
  if (auto v = value("GPUFL_ENGINE")) {
    if (auto e = parseEngine(*v)) {
      options.profiling_engine = *e;
    } else {
      issue("GPUFL_ENGINE", *v,
            std::string("is not one of None, PcSampling, SassMetrics, PcSamplingWithSass, "
                        "RangeProfiler; using ") +
                profilingEngineName(options.profiling_engine));
    }
  }
  if (auto v = value("GPUFL_SAMPLE_RATE_MS")) {
    if (auto n = parseInt(*v, 0, 3'600'000)) {
      options.system_sample_rate_ms = static_cast<int>(*n);
    } else {
      issue("GPUFL_SAMPLE_RATE_MS", *v,
            "is not an integer in 0..3600000; using " +
                std::to_string(options.system_sample_rate_ms));
    }
  }
  const std::pair<const char*, bool InitOptions::*> flags[] = {
      {"GPUFL_DEBUG", &InitOptions::enable_debug_output},
      {"GPUFL_STACK_TRACE", &InitOptions::enable_stack_trace},
      {"GPUFL_NVTX", &InitOptions::enable_nvtx},
      {"GPUFL_SYNC_EVENTS", &InitOptions::enable_sync_events},
      {"GPUFL_MEMORY_EVENTS", &InitOptions::enable_memory_events}};
  for (const auto& [name, member] : flags) {
    if (auto v = value(name)) {
      if (auto b = parseBool(*v)) {
        options.*member = *b;
      } else {
        issue(name, *v,
              std::string("is not a boolean (1/0, true/false, yes/no, on/off); using ") +
                  boolText(options.*member));
      }
    }
  }
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
  if (options.deep_launches_per_kernel < 0) {
    issue("deep_launches_per_kernel",
          "deep_launches_per_kernel=" + std::to_string(options.deep_launches_per_kernel) +
              " is negative; using 0");
    options.deep_launches_per_kernel = 0;
  }
}

std::map<std::string, std::string> optionsJson(const InitOptions& o) {
  return {
      {"app_name", jsonString(o.app_name)},
      {"log_path", jsonString(o.log_path)},
      {"sampling_auto_start", boolText(o.sampling_auto_start)},
      {"system_sample_rate_ms", std::to_string(o.system_sample_rate_ms)},
      {"enable_kernel_details", boolText(o.enable_kernel_details)},
      {"enable_stack_trace", boolText(o.enable_stack_trace)},
      {"enable_debug_output", boolText(o.enable_debug_output)},
      {"enable_nvtx", boolText(o.enable_nvtx)},
      {"enable_sync_events", boolText(o.enable_sync_events)},
      {"enable_memory_events", boolText(o.enable_memory_events)},
      {"profiling_engine", jsonString(profilingEngineName(o.profiling_engine))},
      {"deep_launches_per_kernel", std::to_string(o.deep_launches_per_kernel)},
      {"rotate_bytes", std::to_string(o.rotate_bytes)},
  };
}

}  // namespace gpufl::runtime
