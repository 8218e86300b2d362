#include "monitor/scripted_source.hpp"

#include <simdjson.h>

#include <fstream>
#include <optional>
#include <stdexcept>
#include <utility>

namespace gpufl::monitor {
namespace {

namespace od = simdjson::ondemand;

// A script error: "<file>:<line>: <what>".
struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Tick {
  std::vector<GpuSample> samples;
  std::vector<nvml::ProcessMemory> processes;
};

class ScriptedSource final : public GpuSource {
 public:
  ScriptedSource(std::vector<nvml::GpuIdentity> gpus, std::string open_error,
                 std::vector<Tick> ticks)
      : gpus_(std::move(gpus)), open_error_(std::move(open_error)), ticks_(std::move(ticks)) {}

  nvml::OpenStatus open() override {
    if (!open_error_.empty()) return {false, open_error_};
    return {true, ""};
  }
  const std::vector<nvml::GpuIdentity>& gpus() const override { return gpus_; }
  std::vector<GpuSample> sample(int64_t ts_ns) override {
    if (ticks_.empty()) return {};
    current_ = next_ < ticks_.size() ? next_++ : ticks_.size() - 1;
    std::vector<GpuSample> out = ticks_[current_].samples;
    for (GpuSample& s : out) s.ts_ns = ts_ns;
    return out;
  }
  std::vector<nvml::ProcessMemory> processes() override {
    return ticks_.empty() ? std::vector<nvml::ProcessMemory>{} : ticks_[current_].processes;
  }
  std::vector<nvml::FieldIssue> takeNewIssues() override { return {}; }
  void close() override {}

 private:
  std::vector<nvml::GpuIdentity> gpus_;
  std::string open_error_;
  std::vector<Tick> ticks_;
  size_t next_ = 0, current_ = 0;
};

class LineParser {
 public:
  LineParser(const std::string& path, size_t line) : where_(path + ":" + std::to_string(line)) {}

  [[noreturn]] void fail(const std::string& what) const { throw ScriptError(where_ + ": " + what); }

  uint64_t unsignedOf(od::value v, std::string_view field) const {
    uint64_t out = 0;
    if (v.get_uint64().get(out) != simdjson::SUCCESS)
      fail("field '" + std::string(field) + "': expected a non-negative integer");
    return out;
  }
  int intOf(od::value v, std::string_view field) const {
    uint64_t u = unsignedOf(v, field);
    if (u > 1000000000) fail("field '" + std::string(field) + "': value out of range");
    return static_cast<int>(u);
  }
  std::string stringOf(od::value v, std::string_view field) const {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS)
      fail("field '" + std::string(field) + "': expected a string");
    return std::string(s);
  }

  GpuSample sample(od::object obj, size_t gpu_count) const {
    GpuSample s;
    std::optional<uint64_t> gpu;
    for (auto field : obj) {
      std::string_view key = field.unescaped_key();
      od::value v = field.value();
      if (key == "gpu")
        gpu = unsignedOf(v, key);
      else if (key == "util_gpu")
        s.util_gpu = intOf(v, key);
      else if (key == "util_mem")
        s.util_mem = intOf(v, key);
      else if (key == "mem_used_bytes")
        s.mem_used_bytes = unsignedOf(v, key);
      else if (key == "mem_total_bytes")
        s.mem_total_bytes = unsignedOf(v, key);
      else if (key == "temp_c")
        s.temp_c = intOf(v, key);
      else if (key == "power_mw")
        s.power_mw = unsignedOf(v, key);
      else if (key == "power_limit_mw")
        s.power_limit_mw = unsignedOf(v, key);
      else if (key == "energy_mj")
        s.energy_mj = unsignedOf(v, key);
      else if (key == "clk_sm")
        s.clk_sm = intOf(v, key);
      else if (key == "clk_mem")
        s.clk_mem = intOf(v, key);
      else if (key == "clk_gfx")
        s.clk_gfx = intOf(v, key);
      else if (key == "pcie_rx_kbps")
        s.pcie_rx_kbps = unsignedOf(v, key);
      else if (key == "pcie_tx_kbps")
        s.pcie_tx_kbps = unsignedOf(v, key);
      else if (key == "throttle")
        s.throttle = unsignedOf(v, key);
      else
        fail("unknown sample field '" + std::string(key) + "'");
    }
    if (!gpu) fail("a sample has no field 'gpu'");
    if (*gpu >= gpu_count) fail("field 'gpu': " + std::to_string(*gpu) + " is not in 'devices'");
    s.gpu = static_cast<uint32_t>(*gpu);
    if (s.throttle) s.throttle_reasons = nvml::throttleReasonNames(*s.throttle);
    return s;
  }

  nvml::ProcessMemory process(od::object obj, size_t gpu_count) const {
    nvml::ProcessMemory p;
    bool has_gpu = false, has_pid = false;
    for (auto field : obj) {
      std::string_view key = field.unescaped_key();
      od::value v = field.value();
      if (key == "gpu") {
        uint64_t g = unsignedOf(v, key);
        if (g >= gpu_count) fail("field 'gpu': " + std::to_string(g) + " is not in 'devices'");
        p.gpu = static_cast<uint32_t>(g), has_gpu = true;
      } else if (key == "pid") {
        p.pid = static_cast<uint32_t>(unsignedOf(v, key)), has_pid = true;
      } else if (key == "used_bytes") {
        p.used_bytes = unsignedOf(v, key);
      } else {
        fail("unknown process field '" + std::string(key) + "'");
      }
    }
    if (!has_gpu || !has_pid) fail("a process needs 'gpu' and 'pid'");
    return p;
  }

 private:
  std::string where_;
};

}  // namespace

std::unique_ptr<GpuSource> loadScriptedSource(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open the NVML script";
    return nullptr;
  }
  od::parser parser;
  std::vector<nvml::GpuIdentity> gpus;
  std::string open_error;
  bool have_header = false;
  std::vector<Tick> ticks;
  std::string text;
  try {
    for (size_t line_no = 1; std::getline(in, text); ++line_no) {
      if (text.find_first_not_of(" \t\r") == std::string::npos || text[0] == '#') continue;
      LineParser lp(path, line_no);
      try {
        simdjson::padded_string padded(text);
        od::document doc;
        od::object obj;
        if (parser.iterate(padded).get(doc) != simdjson::SUCCESS ||
            doc.get_object().get(obj) != simdjson::SUCCESS) {
          lp.fail("not a JSON object");
        }
        Tick tick;
        bool is_tick = false;
        for (auto field : obj) {
          std::string_view key = field.unescaped_key();
          od::value v = field.value();
          if (!have_header) {
            if (key == "open_error") {
              open_error = lp.stringOf(v, key);
            } else if (key == "devices") {
              for (od::object dev : v.get_array()) {
                nvml::GpuIdentity id;
                id.index = static_cast<uint32_t>(gpus.size());
                for (auto df : dev) {
                  std::string_view dk = df.unescaped_key();
                  if (dk == "name")
                    id.name = lp.stringOf(df.value(), dk);
                  else if (dk == "uuid")
                    id.uuid = lp.stringOf(df.value(), dk);
                  else
                    lp.fail("unknown device field '" + std::string(dk) + "'");
                }
                gpus.push_back(std::move(id));
              }
            } else {
              lp.fail("field '" + std::string(key) +
                      "': the first line holds 'devices' or 'open_error'");
            }
          } else if (key == "samples") {
            is_tick = true;
            for (od::object s : v.get_array()) tick.samples.push_back(lp.sample(s, gpus.size()));
          } else if (key == "processes") {
            is_tick = true;
            for (od::object p : v.get_array()) tick.processes.push_back(lp.process(p, gpus.size()));
          } else {
            lp.fail("unknown field '" + std::string(key) +
                    "' (a tick holds 'samples', 'processes')");
          }
        }
        if (!have_header) {
          if (gpus.empty() && open_error.empty()) lp.fail("no 'devices' and no 'open_error'");
          have_header = true;
        } else if (is_tick) {
          ticks.push_back(std::move(tick));
        }
      } catch (const simdjson::simdjson_error& e) {
        lp.fail(std::string("malformed JSON (") + e.what() + ")");
      }
    }
  } catch (const ScriptError& e) {
    *error = e.what();
    return nullptr;
  }
  if (!have_header) {
    *error = path + ": empty NVML script (the first line holds 'devices' or 'open_error')";
    return nullptr;
  }
  return std::make_unique<ScriptedSource>(std::move(gpus), std::move(open_error), std::move(ticks));
}

}  // namespace gpufl::monitor
