// renderDiffText / renderDiffJson: the groups that changed (and the new and vanished ones) per
// kind, then the gate's verdict.
#include <cmath>

#include "report/diff/diff_stats.hpp"
#include "report/json/json_writer.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

std::string pct(double change) {
  return (change >= 0 ? "+" : "") + formatFixed(100 * change, 1) + "%";
}

std::string pValue(double p) {
  if (p < 1e-4) return "<1e-4";
  return formatFixed(p, 4);
}

std::string shorten(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

std::string counters(const GroupDiff& g) {
  std::string out;
  auto add = [&](const char* what, const std::optional<double>& b, const std::optional<double>& n) {
    if (!b || !n || std::fabs(*b - *n) < 1e-9) return;
    out += std::string(out.empty() ? "" : ", ") + what + " " + formatPercent(100 * *b) + " -> " +
           formatPercent(100 * *n);
  };
  add("occupancy", g.base_occupancy, g.new_occupancy);
  add("memory efficiency", g.base_memory_efficiency, g.new_memory_efficiency);
  return out;
}

}  // namespace

std::string renderDiffText(const SessionDiff& d) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line("gpufl diff");
  line("  base: " + d.base_label);
  line("  new:  " + d.new_label);
  line("  noise model: medians over launches, Mann-Whitney rank test at alpha " +
       formatFixed(d.options.alpha, 3) + " over the groups (" + pValue(d.alpha_per_test) +
       " each); benchmarks: p10..p90 ranges apart");
  for (const char* kind : {"kernel", "scope", "benchmark"}) {
    std::vector<const GroupDiff*> shown;
    size_t same = 0, too_few = 0;
    for (const GroupDiff& g : d.groups) {
      if (g.kind != kind) continue;
      const bool quiet =
          counters(g).empty() && g.base_count == g.new_count &&
          (g.verdict == Verdict::Same || (g.verdict == Verdict::TooFew && g.change == 0));
      if (quiet) {
        ++(g.verdict == Verdict::TooFew ? too_few : same);
        continue;
      }
      shown.push_back(&g);
    }
    if (shown.empty() && same == 0 && too_few == 0) continue;
    line("");
    line(std::string(kind) + "s: " + std::to_string(shown.size()) + " changed, " +
         std::to_string(same) + " within noise" +
         (too_few ? ", " + std::to_string(too_few) + " unchanged with too few launches to judge"
                  : ""));
    if (shown.empty()) continue;
    line("  " + padRight("verdict", 10) + padRight("change", 9) + padLeft("base med", 11) +
         padLeft("new med", 11) + padLeft("count", 14) + padLeft("p", 8) + "  name");
    for (const GroupDiff* g : shown) {
      std::string verdict = verdictName(g->verdict);
      if (g->regression) verdict = "REGRESSED";
      const bool both = g->verdict != Verdict::New && g->verdict != Verdict::Vanished;
      const std::string count = std::to_string(g->base_count) + "->" + std::to_string(g->new_count);
      line("  " + padRight(verdict, 10) + padRight(both ? pct(g->change) : "", 9) +
           padLeft(g->base_count ? formatDuration(g->base_median_ns) : "-", 11) +
           padLeft(g->new_count ? formatDuration(g->new_median_ns) : "-", 11) + padLeft(count, 14) +
           padLeft(both && g->verdict != Verdict::TooFew ? pValue(g->p_value) : "", 8) + "  " +
           shorten(g->key, 100));
      const std::string c = counters(*g);
      if (!c.empty()) line("      counters: " + c);
    }
  }
  line("");
  if (d.damaged()) {
    // Records lost to damage may be the very launches that regressed: no verdict on such input.
    if (!d.base_damage.empty()) line("BASE lost records to damage: " + d.base_damage);
    if (!d.new_damage.empty()) line("NEW lost records to damage: " + d.new_damage);
    line("gate: CANNOT JUDGE: the logs were not read whole");
  } else if (d.regressions == 0)
    line("gate: pass (no real regression past " + formatPercent(100 * d.options.threshold) + ")");
  else
    line("gate: FAIL: " + std::to_string(d.regressions) + " real regression" +
         (d.regressions == 1 ? "" : "s") + " past " + formatPercent(100 * d.options.threshold));
  return out;
}

std::string renderDiffJson(const SessionDiff& d) {
  JsonWriter w;
  w.beginObject();
  w.field("base", d.base_label);
  w.field("new", d.new_label);
  w.field("threshold", d.options.threshold);
  w.field("alpha", d.options.alpha);
  w.field("alpha_per_test", d.alpha_per_test, 8);
  w.field("min_samples", static_cast<uint64_t>(d.options.min_samples));
  w.field("regressions", static_cast<uint64_t>(d.regressions));
  w.field("pass", d.regressions == 0 && !d.damaged());
  w.field("base_damage", d.base_damage);
  w.field("new_damage", d.new_damage);
  w.key("groups").beginArray();
  for (const GroupDiff& g : d.groups) {
    w.beginObject();
    w.field("kind", g.kind);
    w.field("key", g.key);
    w.field("verdict", verdictName(g.verdict));
    w.field("regression", g.regression);
    w.field("base_count", g.base_count);
    w.field("new_count", g.new_count);
    w.field("base_median_ns", g.base_median_ns, 1);
    w.field("new_median_ns", g.new_median_ns, 1);
    w.field("change", g.change, 6);
    w.field("p_value", g.p_value, 8);
    auto opt = [&](const char* k, const std::optional<double>& v) {
      w.key(k);
      if (v)
        w.value(*v);
      else
        w.null();
    };
    opt("base_occupancy", g.base_occupancy);
    opt("new_occupancy", g.new_occupancy);
    opt("base_memory_efficiency", g.base_memory_efficiency);
    opt("new_memory_efficiency", g.new_memory_efficiency);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.take();
}

}  // namespace gpufl::report
