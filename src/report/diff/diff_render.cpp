// renderDiffText / renderDiffJson: the groups that changed (and the new and vanished ones) per
// kind, then the gate's verdict.
#include <cmath>
#include <utility>

#include "report/diff/diff_stats.hpp"
#include "report/json/json_writer.hpp"
#include "report/text/format.hpp"
#include "report/text/text_table.hpp"

namespace gpufl::report {
namespace {

constexpr size_t kDiffNameWidth = 40;

std::string pct(double change) {
  return (change >= 0 ? "+" : "") + formatFixed(100 * change, 1) + "%";
}

std::string pValue(double p) {
  if (p < 1e-4) return "<1e-4";
  return formatFixed(p, 4);
}

// A kernel key ("name grid(x,y,z) block(x,y,z)") split into its name and its launch shape in CUDA's
// own notation, "<<<64,256>>>" (one-dimensional) or "<<<(8,8,1),(16,16,1)>>>".
std::pair<std::string, std::string> nameAndLaunch(const std::string& key) {
  const size_t grid = key.rfind(" grid(");
  const size_t block = key.rfind(" block(");
  if (grid == std::string::npos || block == std::string::npos || block < grid) return {key, ""};
  auto dims = [](std::string d) {  // "(64,1,1)" -> "64"
    if (d.size() > 4 && d.ends_with(",1,1)")) return d.substr(1, d.size() - 6);
    return d;
  };
  return {key.substr(0, grid), "<<<" + dims(key.substr(grid + 5, block - grid - 5)) + "," +
                                   dims(key.substr(block + 6)) + ">>>"};
}

// Changed, by the statistics' verdict (not by a differing launch count).
bool changed(const GroupDiff& g) {
  return g.verdict == Verdict::Faster || g.verdict == Verdict::Slower ||
         g.verdict == Verdict::New || g.verdict == Verdict::Vanished;
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

std::string renderDiffText(const SessionDiff& d, size_t width) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  // Text wrapped at the width: `first` starts the first line, `rest` the others.
  auto para = [&](const std::string& first, const std::string& s, const std::string& rest) {
    for (const std::string& l : wrapText(s, width, first, rest)) line(l);
  };
  line("gpufl diff");
  para("  base: ", d.base_label, "        ");
  para("  new:  ", d.new_label, "        ");
  para("  noise model: ",
       "medians over launches, Mann-Whitney rank test at alpha " + formatFixed(d.options.alpha, 3) +
           " over the groups (" + pValue(d.alpha_per_test) +
           " each); benchmarks: p10..p90 ranges apart",
       "    ");
  for (const char* kind : {"kernel", "scope", "benchmark"}) {
    const bool kernels = std::string(kind) == "kernel";
    std::vector<const GroupDiff*> shown;
    size_t n_changed = 0, same = 0, too_few = 0;
    for (const GroupDiff& g : d.groups) {
      if (g.kind != kind) continue;
      if (changed(g)) ++n_changed;
      if (g.verdict == Verdict::Same) ++same;
      if (g.verdict == Verdict::TooFew) ++too_few;
      // Rows: what changed, and what else differs (launch counts, counters, a change too few
      // launches could judge).
      const bool quiet =
          counters(g).empty() && g.base_count == g.new_count &&
          (g.verdict == Verdict::Same || (g.verdict == Verdict::TooFew && g.change == 0));
      if (!quiet) shown.push_back(&g);
    }
    if (shown.empty() && same == 0 && too_few == 0 && n_changed == 0) continue;
    line("");
    para(std::string(kind) + "s: ",
         std::to_string(n_changed) + " changed, " + std::to_string(same) + " within noise" +
             (too_few ? ", " + std::to_string(too_few) + " too few to judge" : ""),
         "  ");
    if (shown.empty()) continue;
    std::vector<TableColumn> columns = {{"verdict", false, 0}, {"change", true, 0},
                                        {"base med", true, 0}, {"new med", true, 0},
                                        {"count", true, 2},    {"p", true, 1}};
    if (kernels) columns.push_back({"launch", false, 0});
    TextTable table(std::move(columns), "name", kind != std::string("scope"));
    // Which kernel changed is what a diff is read for: counts and p-values go before its name
    // gets short.
    table.keepNamesAtLeast(kDiffNameWidth);
    for (const GroupDiff* g : shown) {
      std::string verdict = verdictName(g->verdict);
      if (g->regression) verdict = "REGRESSED";
      const bool both = g->verdict != Verdict::New && g->verdict != Verdict::Vanished;
      std::vector<std::string> cells = {
          verdict,
          both ? pct(g->change) : "",
          g->base_count ? formatDuration(g->base_median_ns) : "-",
          g->new_count ? formatDuration(g->new_median_ns) : "-",
          std::to_string(g->base_count) + "->" + std::to_string(g->new_count),
          both && g->verdict != Verdict::TooFew ? pValue(g->p_value) : ""};
      std::string name = g->key;
      if (kernels) {
        auto [function, launch] = nameAndLaunch(g->key);
        name = function;
        cells.push_back(launch);
      }
      const std::string c = counters(*g);
      table.addRow(std::move(cells), name, c.empty() ? "" : "counters: " + c);
    }
    for (const std::string& l : table.render(width)) line(l);
  }
  line("");
  if (d.damaged()) {
    // Records lost to damage may be the very launches that regressed: no verdict on such input.
    if (!d.base_damage.empty()) para("BASE lost records to damage: ", d.base_damage, "  ");
    if (!d.new_damage.empty()) para("NEW lost records to damage: ", d.new_damage, "  ");
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
