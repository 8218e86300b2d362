#include "report/aggregate/card_stats.hpp"

#include <algorithm>
#include <limits>

#include "core/checked_math.hpp"
#include "report/aggregate/hints.hpp"
#include "report/aggregate/system_stats.hpp"

namespace gpufl::report {

bool CoarseIntervals::extends(const std::pair<int64_t, int64_t>& last, int64_t start,
                              int64_t gap_ns) {
  return start >= last.first && start <= satAdd(last.second, gap_ns);
}

void CoarseIntervals::add(int64_t start, int64_t end) {
  if (end < start) end = start;
  if (!v_.empty() && extends(v_.back(), start, gap_ns_)) {
    v_.back().second = std::max(v_.back().second, end);  // in order and touching: extend
    return;
  }
  v_.emplace_back(start, end);
  if (v_.size() > kMaxIntervals) {
    merge();
    while (v_.size() > kMaxIntervals / 2) {
      gap_ns_ = gap_ns_ ? satAdd(gap_ns_, gap_ns_) : 1000;
      merge();
    }
  }
}

void CoarseIntervals::merge() {
  std::sort(v_.begin(), v_.end());
  size_t out = 0;
  for (size_t i = 0; i < v_.size(); ++i) {
    if (out > 0 && v_[i].first <= satAdd(v_[out - 1].second, gap_ns_)) {
      v_[out - 1].second = std::max(v_[out - 1].second, v_[i].second);
    } else {
      v_[out++] = v_[i];
    }
  }
  v_.resize(out);
}

const std::vector<std::pair<int64_t, int64_t>>& CoarseIntervals::intervals() {
  merge();
  return v_;
}

void GpuSampleLog::add(const GpuSample& s) {
  if (seen_++ % stride_ != 0) return;
  Sample k;
  k.ts_ns = s.ts_ns;
  k.gpu = s.gpu;
  if (s.clk_sm) k.clk_sm = *s.clk_sm;
  if (s.power_mw) k.power_w = static_cast<double>(*s.power_mw) / 1000.0;
  if (s.throttle || !s.throttle_reasons.empty()) {
    k.has_throttle = true;
    std::vector<std::string> reasons = s.throttle_reasons;
    if (reasons.empty()) reasons = throttleReasonNames(*s.throttle);
    for (const std::string& r : reasons) {
      auto it = std::find(reason_names_.begin(), reason_names_.end(), r);
      size_t bit = static_cast<size_t>(it - reason_names_.begin());
      if (it == reason_names_.end() && reason_names_.size() < 63) {
        reason_names_.push_back(r);
      } else if (it == reason_names_.end()) {  // the 64th and later names share bit 63
        if (reason_names_.size() == 63) reason_names_.push_back("other");
        bit = 63;
      }
      k.reasons |= uint64_t{1} << bit;
    }
  }
  samples_.push_back(k);
  if (samples_.size() > kMaxSamples) {
    size_t out = 0;
    for (size_t i = 0; i < samples_.size(); i += 2) samples_[out++] = samples_[i];
    samples_.resize(out);
    stride_ *= 2;
  }
}

void GpuSampleLog::sort() {
  std::stable_sort(samples_.begin(), samples_.end(),
                   [](const Sample& a, const Sample& b) { return a.ts_ns < b.ts_ns; });
}

void GpuSampleLog::addTo(ClockWindow& w, const Sample& s) const {
  ++w.samples;
  if (s.clk_sm >= 0) w.clk_sm.add(s.clk_sm);
  if (s.power_w >= 0) w.power_w.add(s.power_w);
  if (s.has_throttle) ++w.throttle_samples;
  for (size_t bit = 0; bit < reason_names_.size(); ++bit) {
    if (!(s.reasons & (uint64_t{1} << bit))) continue;
    const std::string& name = reason_names_[bit];
    if (std::find(w.throttle.begin(), w.throttle.end(), name) == w.throttle.end())
      w.throttle.push_back(name);
  }
}

ClockWindow GpuSampleLog::window(uint32_t gpu,
                                 const std::vector<std::pair<int64_t, int64_t>>& intervals,
                                 int64_t resolution_ns) const {
  ClockWindow w;
  w.resolution_ns = resolution_ns;
  auto byTime = [](const Sample& s, int64_t t) { return s.ts_ns < t; };
  const Sample* nearest = nullptr;
  int64_t best = std::numeric_limits<int64_t>::max();
  for (const auto& [start, end] : intervals) {
    auto it = std::lower_bound(samples_.begin(), samples_.end(), start, byTime);
    for (auto j = it; j != samples_.end() && j->ts_ns <= end; ++j)
      if (j->gpu == gpu) addTo(w, *j);
    if (w.samples > 0) continue;
    // Nearest sample of this GPU on either side of the interval.
    for (auto j = it; j != samples_.end(); ++j) {
      if (j->gpu != gpu) continue;
      if (spanNs(end, j->ts_ns) < best) best = spanNs(end, j->ts_ns), nearest = &*j;
      break;
    }
    for (auto j = it; j != samples_.begin();) {
      --j;
      if (j->gpu != gpu) continue;
      if (spanNs(j->ts_ns, start) < best) best = spanNs(j->ts_ns, start), nearest = &*j;
      break;
    }
  }
  if (w.samples == 0 && nearest) {
    addTo(w, *nearest);
    w.nearest = true;
    w.nearest_gap_ns = std::max<int64_t>(best, 0);
  }
  std::sort(w.throttle.begin(), w.throttle.end());
  return w;
}

namespace {

const FunctionProfile* profileOf(const Report& r, const KernelGroup& g) {
  for (const FunctionProfile& f : r.profile.functions)
    if (f.func == g.mangled || (!g.name.empty() && f.name == g.name)) return &f;
  return nullptr;
}

void addBandwidth(const Report& r, const KernelGroup& g, KernelCard& c) {
  if (!c.sass || c.sass->launches == 0 || c.sass->totals.sectors_global == 0) return;
  CardBandwidth b;
  b.bytes_per_launch = static_cast<double>(c.sass->totals.sectors_global) * 32.0 /
                       static_cast<double>(c.sass->launches);
  b.clean_duration = g.clean.count > 0;
  b.duration_ns = b.clean_duration ? g.clean.median_ns : g.durations.median_ns;
  b.duration_launches = b.clean_duration ? g.clean.count : g.durations.count;
  if (b.duration_ns <= 0) return;
  b.achieved_bps = b.bytes_per_launch / (b.duration_ns / 1e9);
  const DeviceInfo* dev = deviceOf(r, g.def.device);
  if (dev && dev->mem_clock_khz > 0 && dev->mem_bus_bits > 0) {
    b.peak_bps = 2.0 * dev->mem_clock_khz * 1000.0 * dev->mem_bus_bits / 8.0;
    b.peak_pct = 100.0 * b.achieved_bps / b.peak_bps;
  }
  c.bandwidth = b;
}

}  // namespace

void addCards(Report& r) {
  r.cards.clear();
  const KernelSummary& k = r.kernels;
  bool any_samples = false;
  for (const GpuSystemStats& g : r.gpus) any_samples |= g.samples > 0;
  for (size_t i = 0; i < k.groups.size() && i < kCardGroups; ++i) {
    const KernelGroup& g = k.groups[i];
    KernelCard c;
    c.group = i;
    c.share_pct = k.total_ns > 0 ? 100.0 * static_cast<double>(g.durations.total_ns) /
                                       static_cast<double>(k.total_ns)
                                 : 0;
    c.session_has_samples = any_samples;
    if (const FunctionProfile* f = profileOf(r, g)) {
      if (f->has_sass) {
        CardSass sass;
        sass.totals = f->sass;
        sass.launches = f->launches;
        sass.memory_efficiency_pct = f->sass.memoryEfficiencyPct();
        sass.warp_efficiency_pct = f->sass.warpEfficiencyPct(r.profile.warp_size);
        sass.threads_per_warp = f->sass.threadsPerWarp();
        for (const KernelGroup& other : k.groups)
          if (other.mangled == g.mangled) ++sass.function_groups;
        c.sass = sass;
      }
      c.stall_samples = f->stall_samples;
      c.patched_samples = f->patched_samples;
      for (size_t s = 0; s < f->stalls.size() && s < 3; ++s) {
        const double pct = c.stall_samples ? 100.0 * static_cast<double>(f->stalls[s].samples) /
                                                 static_cast<double>(c.stall_samples)
                                           : 0.0;
        c.stalls.push_back(CardStall{f->stalls[s], pct});
      }
    }
    addBandwidth(r, g, c);
    c.advice = cardAdvice(r, g, c);
    r.cards.push_back(std::move(c));
  }
}

}  // namespace gpufl::report
