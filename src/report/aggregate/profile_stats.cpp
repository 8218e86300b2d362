#include "report/aggregate/profile_stats.hpp"

#include <algorithm>

namespace gpufl::report {

void ProfileAggregator::keepText(PcAcc& pc, const std::string& sass, const std::string& source) {
  if (pc.sass.empty()) pc.sass = sass;
  if (pc.source.empty()) pc.source = source;
}

void ProfileAggregator::onSassMetric(const SassMetric& m) {
  FuncAcc& f = funcs_[m.func];
  f.has_sass = true;
  f.sass.inst_executed += m.inst_executed;
  f.sass.thread_inst_executed += m.thread_inst_executed;
  f.sass.sectors_global += m.sectors_global;
  f.sass.sectors_global_ideal += m.sectors_global_ideal;
  f.launches = std::max(f.launches, m.launches);
  PcAcc& pc = f.pcs[m.pc];
  pc.inst_executed += m.inst_executed;
  pc.thread_inst_executed += m.thread_inst_executed;
  keepText(pc, m.sass, m.source);
}

void ProfileAggregator::onPcSample(const PcSample& s) {
  FuncAcc& f = funcs_[s.func];
  f.samples += s.count;
  if (s.patched) f.patched_samples += s.count;
  f.stalls[s.stall] += s.count;
  PcAcc& pc = f.pcs[s.pc];
  pc.samples += s.count;
  pc.stalls[s.stall] += s.count;
  keepText(pc, s.sass, s.source);
}

void ProfileAggregator::onRangeCounters(const RangeCounters& r) {
  ranges_.add(r);
}

FunctionProfile ProfileAggregator::finishFunction(const std::string& func, const FuncAcc& acc,
                                                  const ReadableName& readable) {
  FunctionProfile fp;
  fp.func = func;
  const std::string* name = readable ? readable(func) : nullptr;
  fp.name = name ? *name : func;
  fp.has_sass = acc.has_sass;
  fp.sass = acc.sass;
  fp.launches = acc.launches;
  fp.stall_samples = acc.samples;
  fp.patched_samples = acc.patched_samples;
  for (const auto& [reason, n] : acc.stalls) fp.stalls.push_back({reason, stallLabel(reason), n});
  std::stable_sort(fp.stalls.begin(), fp.stalls.end(),
                   [](const StallCount& a, const StallCount& b) { return a.samples > b.samples; });
  fp.hot_by_samples = acc.samples > 0;
  std::vector<HotInstruction> hot;
  for (const auto& [pc, p] : acc.pcs) {
    HotInstruction h;
    h.pc = pc;
    h.sass = p.sass;
    h.source = p.source;
    h.samples = p.samples;
    h.inst_executed = p.inst_executed;
    h.thread_inst_executed = p.thread_inst_executed;
    uint64_t best = 0;
    for (const auto& [reason, n] : p.stalls) {
      if (n > best) {
        best = n;
        h.top_stall = stallLabel(reason);
      }
    }
    if ((fp.hot_by_samples ? h.samples : h.inst_executed) > 0) hot.push_back(std::move(h));
  }
  bool by_samples = fp.hot_by_samples;
  std::stable_sort(hot.begin(), hot.end(),
                   [by_samples](const HotInstruction& a, const HotInstruction& b) {
                     return by_samples ? a.samples > b.samples : a.inst_executed > b.inst_executed;
                   });
  if (hot.size() > kHotInstructions) hot.resize(kHotInstructions);
  fp.hot = std::move(hot);
  return fp;
}

void ProfileAggregator::finish(const ReadableName& readable, int warp_size,
                               ProfileSummary& out) const {
  out = ProfileSummary{};
  out.warp_size = warp_size > 0 ? warp_size : 32;
  for (const auto& [func, acc] : funcs_) {
    out.has_sass |= acc.has_sass;
    out.has_pc |= acc.samples > 0;
    out.sass.inst_executed += acc.sass.inst_executed;
    out.sass.thread_inst_executed += acc.sass.thread_inst_executed;
    out.sass.sectors_global += acc.sass.sectors_global;
    out.sass.sectors_global_ideal += acc.sass.sectors_global_ideal;
    out.stall_samples += acc.samples;
    out.functions.push_back(finishFunction(func, acc, readable));
  }
  std::stable_sort(out.functions.begin(), out.functions.end(),
                   [](const FunctionProfile& a, const FunctionProfile& b) {
                     if (a.stall_samples != b.stall_samples)
                       return a.stall_samples > b.stall_samples;
                     return a.sass.inst_executed > b.sass.inst_executed;
                   });
  out.ranges = ranges_.rows();
}

}  // namespace gpufl::report
