// `gpufl diff BASE NEW`: what changed between two sessions, judged against their noise.
//
// Each side is reduced to samples: the durations of every launch of each kernel (name and launch
// shape), of every instance of each scope (its path), and the benchmark records. A group's change
// is the ratio of medians; whether it is real is a two-sided Mann-Whitney rank test over the
// launches (normal approximation with tie correction), at alpha / (number of groups compared) so
// that comparing many kernels does not manufacture a regression. Benchmarks carry only their
// summary: a change is real when the p10..p90 ranges do not overlap. A regression fails the gate
// when it is real and the median grew by more than the threshold.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "core/events.hpp"
#include "core/output_width.hpp"

namespace gpufl::report {

// One side of a diff, collected from a session's events (DiffCollector).
struct DiffSide {
  std::string label;   // prefix and session, for the output
  std::string damage;  // what reading lost to damage (log::describeDamage); empty: read whole
  struct Group {
    std::vector<double>
        ns;              // clean durations (launches without instrumentation when there are any)
    uint64_t count = 0;  // all launches / instances
    std::optional<double> occupancy;
    std::optional<double> memory_efficiency;  // ideal / actual global sectors (SASS metrics), 0..1
  };
  std::map<std::string, Group> kernels;  // "name grid(x,y,z) block(x,y,z)"
  std::map<std::string, Group> scopes;   // "a/b/c"
  std::map<std::string, BenchmarkResult>
      benchmarks;  // "name [shape] dtype": the last record of each
};

// Collects a DiffSide from one session's events.
class DiffCollector final : public EventVisitor {
 public:
  void onKernelDef(const KernelDef& e) override;
  void onKernel(const KernelEvent& e) override;
  void onScopePath(const ScopePath& e) override;
  void onScopeBegin(const ScopeBegin& e) override;
  void onScopeEnd(const ScopeEnd& e) override;
  void onSassMetric(const SassMetric& e) override;
  void onBenchmark(const BenchmarkResult& e) override;
  // Call once after the last event.
  DiffSide finish(std::string label);

 private:
  struct Def {
    std::string key, function, mangled;
    std::optional<double> occupancy;
  };
  struct Launches {
    std::vector<double> clean, instrumented;
  };
  std::map<uint32_t, Def> defs_;
  std::map<uint32_t, Launches> launches_;  // by def id (a def may come after its launches)
  std::map<uint32_t, std::pair<uint32_t, std::string>> paths_;  // id -> parent, name
  std::map<uint64_t, std::pair<uint32_t, int64_t>> open_;       // scope instance -> path, begin
  std::map<uint32_t, std::vector<double>> scope_ns_;
  std::map<std::string, std::pair<uint64_t, uint64_t>> sectors_;  // function -> ideal, actual
  std::map<std::string, BenchmarkResult> benchmarks_;
};

struct DiffOptions {
  double threshold = 0.05;  // a regression must slow the median by more than this (fraction)
  double alpha = 0.01;      // family-wise false alarm rate of the rank tests
  size_t min_samples = 5;   // fewer launches on a side: too few to judge (never fails the gate)
};

enum class Verdict { Same, Faster, Slower, TooFew, New, Vanished };
const char* verdictName(Verdict v);

struct GroupDiff {
  std::string kind;  // "kernel", "scope", "benchmark"
  std::string key;
  uint64_t base_count = 0, new_count = 0;
  double base_median_ns = 0, new_median_ns = 0;
  double change = 0;   // new / base median - 1
  double p_value = 1;  // rank test (kernels, scopes); 0 or 1 for benchmarks (ranges apart or not)
  Verdict verdict = Verdict::Same;
  bool regression = false;  // real, and slower by more than the threshold: fails the gate
  std::optional<double> base_occupancy, new_occupancy;
  std::optional<double> base_memory_efficiency, new_memory_efficiency;
};

struct SessionDiff {
  std::string base_label, new_label;
  DiffOptions options;
  double alpha_per_test = 0;
  std::vector<GroupDiff> groups;  // kernels, scopes, benchmarks; each by |change| descending
  size_t regressions = 0;
  std::string base_damage, new_damage;  // DiffSide::damage: a side not read whole cannot pass
  bool damaged() const { return !base_damage.empty() || !new_damage.empty(); }
};

// Two-sided Mann-Whitney U test: the p-value that a and b come from the same distribution (normal
// approximation, tie-corrected, continuity-corrected). 1 when either is empty.
double rankTestPValue(const std::vector<double>& a, const std::vector<double>& b);

double medianOf(std::vector<double> v);

SessionDiff diffSessions(const DiffSide& base, const DiffSide& next,
                         const DiffOptions& options = {});

// The diff as text (a table per kind, the gate's verdict last) in `width` columns
// (core/output_width), and as JSON.
std::string renderDiffText(const SessionDiff& d, size_t width = kDefaultOutputWidth);
std::string renderDiffJson(const SessionDiff& d);

}  // namespace gpufl::report

namespace gpufl::report {

// Reads one session of a prefix (session: an id or a prefix of one; empty: the latest) into a
// DiffSide. False with *error when nothing of it is readable; reader warnings ("file:line:
// message") go to *warnings.
bool loadDiffSide(const std::string& prefix, const std::string& session, DiffSide& out,
                  std::vector<std::string>* warnings, std::string* error);

}  // namespace gpufl::report
