// Prometheus text exposition format (version 0.0.4), written by hand because it is a few lines of
// escaping rules: "# HELP" and "# TYPE" once per family, then one `name{label="value"} number` line
// per sample. What Prometheus accepts is checked by `promtool check metrics` in the tests.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpufl::monitor {

enum class MetricType { Gauge, Counter };

using Labels = std::vector<std::pair<std::string, std::string>>;

inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

class Exposition {
 public:
  // Starts a family: the samples added next belong to it. A family that gets no sample is left out
  // of text(). Names are the caller's constants ([a-zA-Z_:][a-zA-Z0-9_:]*); a name given twice is a
  // programming error (Prometheus rejects the whole scrape), so it throws std::logic_error.
  void family(std::string_view name, MetricType type, std::string_view help);
  void sample(const Labels& labels, double value);

  std::string text() const;

 private:
  struct Family {
    std::string name;
    MetricType type;
    std::string help;
    std::string lines;  // the samples, already formatted
  };
  std::vector<Family> families_;
};

// The number as the format writes it: integers exactly, others with enough digits to round-trip,
// "NaN", "+Inf", "-Inf".
std::string formatValue(double v);
// A label value between its double quotes: backslash, double quote and newline escaped.
std::string escapeLabelValue(std::string_view v);
// HELP text: backslash and newline escaped.
std::string escapeHelp(std::string_view v);

}  // namespace gpufl::monitor
