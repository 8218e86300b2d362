#include "synthetic_session.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "synthetic_kernels.hpp"

namespace gpufl::bench {
namespace {

// xoshiro256** seeded by splitmix64, and hand-written distributions: std::*_distribution may differ
// between standard libraries, and the same seed must give the same log everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& w : s_) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      w = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3], s_[2] ^= t,
        s_[3] = rotl(s_[3], 45);
    return r;
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  int64_t between(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }
  bool chance(double p) { return uniform() < p; }
  double normal() {  // Box-Muller
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

constexpr int64_t kTick = 32;  // GPU timestamp resolution (assumed)
constexpr int64_t kSamplePeriod = 100'000'000;
constexpr uint32_t kCopyStream = 14;
constexpr uint32_t kEpoch = 1, kStep = 2, kForward = 3, kBackward = 4,
                   kOptimizer = 5;  // scope path ids
constexpr int kPhaseKernels[] = {48, 80, 8};
constexpr int kStepsPerEpoch = 200;

struct Launch {
  const SyntheticKernel* kernel;
  int extra_calls;
};

int64_t quantize(double ns) {
  return std::max<int64_t>(kTick, int64_t(std::llround(ns / kTick)) * kTick);
}

class Generator {
 public:
  Generator(const SessionSpec& spec, EventVisitor& out,
            const std::function<uint64_t()>& bytes_written)
      : spec_(spec),
        out_(out),
        bytes_written_(bytes_written),
        rng_(spec.seed * 1000003 + spec.index),
        device_(h200Device()),
        kernels_(syntheticKernels(device_)),
        defined_(kernels_.size(), false) {}

  void run() {
    start();
    for (uint64_t step = 0; emitted_ < spec_.kernels; ++step) {
      if (step % kStepsPerEpoch == 0) {
        if (step) end(kEpoch);
        begin(kEpoch, "epoch", "e" + std::to_string(step / kStepsPerEpoch));
      }
      runStep();
    }
    if (held_) out_.onKernel(*held_);
    end(kEpoch);
    finish();
  }

 private:
  void start() {
    uint64_t a = rng_.next(), b = rng_.next();
    b = (b & ~0xf000ull) | 0x4000ull;                  // version 4
    a = (a & ~(0xc000ull << 48)) | (0x8000ull << 48);  // variant 10
    char uuid[40];
    std::snprintf(uuid, sizeof uuid, "%08llx-%04llx-%04llx-%04llx-%012llx",
                  (unsigned long long)(b >> 32), (unsigned long long)((b >> 16) & 0xffff),
                  (unsigned long long)(b & 0xffff), (unsigned long long)(a >> 48),
                  (unsigned long long)(a & 0xffffffffffffull));
    SessionStart s;
    s.session_id = uuid;
    s.sid = sid_ = s.session_id.substr(0, 8);
    s.app = "synthetic_train";
    s.pid = 40000 + spec_.index;
    tid_ = s.pid;  // the training loop runs on the main thread
    s.host = "h200-node-01";
    s.version = "0.1.0";
    s.engine = Engine::None;
    // Session k starts two hours after session k-1 on a machine up for an hour.
    s.start_ns =
        3'600'000'000'000 + int64_t(spec_.index) * 7'200'000'000'000 + rng_.between(0, 999'999'999);
    s.start_unix_ns = 1'760'000'000'000'000'000 + s.start_ns;
    s.options = {{"app_name", "\"synthetic_train\""}, {"log_path", "\"./synthetic\""},
                 {"profiling_engine", "\"None\""},    {"sampling_auto_start", "true"},
                 {"system_sample_rate_ms", "100"},    {"enable_kernel_details", "true"},
                 {"enable_stack_trace", "false"}};
    s.devices = {device_};
    start_ns_ = s.start_ns;
    out_.onSessionStart(s);
    out_.onNote({sid_, start_ns_ + 1200, "cupti_activity", "on",
                 "kernel, memcpy, memset activity enabled"});
    out_.onNote({sid_, start_ns_ + 1900, "nvml", "on", "libnvidia-ml.so.1 loaded, 1 GPU"});
    out_.onNote({sid_, start_ns_ + 2100, "pc_sampling", "off", "profiling_engine is None"});
    const char* names[] = {"epoch", "step", "forward", "backward", "optimizer"};
    for (uint32_t p = kEpoch; p <= kOptimizer; ++p) {
      out_.onScopePath({sid_, p,
                        p == kEpoch  ? 0
                        : p == kStep ? kEpoch
                                     : kStep,
                        names[p - 1], p < 3 ? int(p) - 1 : 2});
    }
    // GPU timestamps sit on a 32 ns grid offset from the host clock; everything after keeps to that
    // grid.
    main_end_ = main_start_ = start_ns_ + 40'000'000 + rng_.between(0, 31);
    for (int64_t& e : side_end_) e = main_end_;
    next_sample_ = start_ns_ + kSamplePeriod;
    for (int ph = 0; ph < 3; ++ph) {
      for (int i = 0; i < kPhaseKernels[ph]; ++i) program_[ph].push_back(newLaunch(Phase(ph)));
    }
  }

  void runStep() {
    begin(kStep, "step", "");
    copy(kCopyStream, CopyKind::HtoD, 2 * 8 * 4096 * 8, "pinned", "device");
    memset(4 << 20);
    const uint32_t scopes[] = {kForward, kBackward, kOptimizer};
    const char* names[] = {"forward", "backward", "optimizer"};
    for (int ph = 0; ph < 3 && emitted_ < spec_.kernels; ++ph) {
      begin(scopes[ph], names[ph], "");
      for (int i = 0; i < kPhaseKernels[ph] && emitted_ < spec_.kernels; ++i) {
        // A training step is a fixed program; 1% of launches differ (data-dependent paths,
        // heuristics).
        const Launch l =
            spec_.repeat_steps && !rng_.chance(0.01) ? program_[ph][i] : newLaunch(Phase(ph));
        kernel(*l.kernel, scopes[ph], l.extra_calls);
      }
      end(scopes[ph]);
    }
    copy(7, CopyKind::DtoH, 4, "device", "pageable");
    end(kStep);
  }

  const SyntheticKernel& draw(Phase phase) {
    double total = 0;
    for (const auto& k : kernels_) total += k.phase == phase ? k.weight : 0;
    double r = rng_.uniform(0, total);
    for (const auto& k : kernels_) {
      if (k.phase != phase) continue;
      if ((r -= k.weight) < 0) return k;
    }
    return kernels_.back();
  }

  // Runtime API calls other than the launch itself between two launches (each takes a correlation
  // id).
  int extraCalls() {
    const double u = rng_.uniform();
    return u < 0.80 ? 0 : u < 0.95 ? 1 : int(rng_.between(2, 4));
  }
  uint64_t nextCorr(int extra_calls) { return corr_ += 1 + extra_calls; }
  Launch newLaunch(Phase phase) { return {&draw(phase), extraCalls()}; }

  // Places an activity of `dur` on `stream` and returns its start.
  int64_t place(uint32_t stream, int64_t dur) {
    const int64_t gap = quantize(rng_.uniform(1000, 5000));
    int64_t start;
    if (stream == 7) {
      start = main_end_ + gap;
      main_end_ = start + dur;
      main_start_ = start;
    } else {
      int64_t& end = side_end_[stream % 4];
      start = std::max(end, main_start_) + gap;
      end = start + dur;
    }
    while (start >= next_sample_) samples();
    last_gpu_ = std::max(last_gpu_, start);
    return start;
  }

  void kernel(const SyntheticKernel& k, uint32_t scope, int extra_calls) {
    if (!defined_[k.def.id - 1]) {
      KernelDef d = k.def;
      d.sid = sid_;
      out_.onKernelDef(d);
      defined_[k.def.id - 1] = true;
    }
    double dur = k.base_ns * (1 + 0.015 * rng_.normal());
    if (rng_.chance(0.003)) dur *= rng_.uniform(1.2, 1.6);
    if (k.def.id == spec_.slower_kernel) dur *= spec_.slower_factor;
    KernelEvent e;
    e.sid = sid_;
    e.def_id = k.def.id;
    e.stream = k.stream;
    e.scope_path = scope;
    e.correlation_id = nextCorr(extra_calls);
    e.start_ns = place(k.stream, quantize(dur));
    e.end_ns = e.start_ns + quantize(dur);
    ++emitted_;
    if (held_) {  // the held kernel is delivered after this one
      out_.onKernel(e);
      out_.onKernel(*held_);
      held_.reset();
    } else if (rng_.chance(0.02)) {
      held_ = e;
    } else {
      out_.onKernel(e);
    }
  }

  void copy(uint32_t stream, CopyKind kind, uint64_t bytes, const char* src, const char* dst) {
    MemcpyEvent m;
    m.sid = sid_;
    m.kind = kind;
    m.bytes = bytes;
    m.stream = stream;
    m.correlation_id = nextCorr(extraCalls());
    const int64_t dur = quantize(2500 + double(bytes) / 25.0);  // ~25 GB/s over PCIe 5 plus latency
    m.start_ns = place(stream, dur);
    m.end_ns = m.start_ns + dur;
    m.scope_path = open_scope_;
    m.src_kind = src;
    m.dst_kind = dst;
    ++memcpys_;
    out_.onMemcpy(m);
  }

  void memset(uint64_t bytes) {
    MemcpyEvent m;
    m.sid = sid_;
    m.is_memset = true;
    m.bytes = bytes;
    m.stream = 7;
    m.correlation_id = nextCorr(extraCalls());
    const int64_t dur = quantize(1500 + double(bytes) / 2000.0);
    m.start_ns = place(7, dur);
    m.end_ns = m.start_ns + dur;
    m.scope_path = open_scope_;
    m.dst_kind = "device";
    m.value = 0;
    ++memcpys_;
    out_.onMemcpy(m);
  }

  // Host time of the launching thread: it runs 20-80 us ahead of the GPU work it enqueues.
  int64_t hostNow() { return std::max(host_, main_end_ - rng_.between(20'000, 80'000)); }

  void begin(uint32_t path, const char* name, const std::string& tag) {
    host_ = hostNow() + rng_.between(200, 900);
    const uint64_t id = ++scope_id_;
    open_ids_[path] = id;
    open_scope_ = path;
    out_.onScopeBegin({sid_, id, path, tid_, host_, name, tag, path <= kStep ? int(path) - 1 : 2});
    ++scopes_;
  }

  void end(uint32_t path) {
    host_ = hostNow() + rng_.between(300, 1500);
    out_.onScopeEnd({sid_, open_ids_[path], path, tid_, host_});
    open_scope_ = path > kStep ? kStep : path == kStep ? kEpoch : 0;
  }

  void samples() {
    const int64_t ts = next_sample_;
    next_sample_ += kSamplePeriod;
    const double minutes = double(ts - start_ns_) / 60e9;
    const bool capped = rng_.chance(0.1);
    GpuSample g;
    g.sid = sid_;
    g.ts_ns = ts;
    g.util_gpu = int(rng_.between(94, 100));
    g.util_mem = int(rng_.between(38, 62));
    g.mem_used_bytes = 121'000'000'000 + uint64_t(rng_.between(0, 400'000'000));
    g.mem_total_bytes = device_.global_mem_bytes;
    g.temp_c = int(std::min(38 + 24 * minutes / (minutes + 5), 70.0) + rng_.between(0, 1));
    g.power_mw = capped ? 700000 - rng_.between(0, 900) : rng_.between(520000, 690000);
    g.power_limit_mw = 700000;
    energy_mj_ += *g.power_mw / 10;  // mW x 0.1 s = mJ
    g.energy_mj = energy_mj_;
    g.clk_sm = capped ? int(rng_.between(1665, 1875)) : 1980;
    g.clk_gfx = g.clk_sm;
    g.clk_mem = 3201;
    g.pcie_rx_kbps = rng_.between(2000, 60000);
    g.pcie_tx_kbps = rng_.between(500, 4000);
    g.throttle = capped ? 0x4 : 0;
    if (capped) g.throttle_reasons = {"sw_power_cap"};
    out_.onGpuSample(g);
    HostSample h;
    h.sid = sid_;
    h.ts_ns = ts + rng_.between(20'000, 90'000);
    h.cpu_pct = std::round(rng_.uniform(6, 14) * 10) / 10;
    h.proc_cpu_pct = std::round(rng_.uniform(2.5, 3.6) * 10) / 10;
    h.ram_used_bytes = 186'000'000'000 + uint64_t(rng_.between(0, 2'000'000'000));
    h.ram_total_bytes = 2'151'000'000'000;
    h.proc_rss_bytes = 27'400'000'000 + uint64_t(minutes * 10'000'000);
    out_.onHostSample(h);
  }

  void finish() {
    SessionEnd e;
    e.sid = sid_;
    e.end_ns = std::max(host_, last_gpu_) + 2'000'000;
    e.kernels = emitted_;
    e.memcpys = memcpys_;
    e.scopes = scopes_;
    e.dropped = {{"activity", 0}, {"launch", 0}, {"scope", 0}};
    e.overhead_ns = {{"cupti_callbacks", emitted_ * 410}, {"writer", emitted_ * 190}};
    e.cpu_time_ns = emitted_ * 640;
    e.buffers = emitted_ * 160 / (8 << 20) + 1;  // 8 MiB CUPTI buffers, ~160 B per activity record
    e.bytes_written = bytes_written_ ? bytes_written_() : 0;
    out_.onSessionEnd(e);
  }

  const SessionSpec spec_;
  EventVisitor& out_;
  const std::function<uint64_t()>& bytes_written_;
  Rng rng_;
  DeviceInfo device_;
  std::vector<SyntheticKernel> kernels_;
  std::vector<bool> defined_;
  std::string sid_;
  int64_t start_ns_ = 0, main_end_ = 0, main_start_ = 0, side_end_[4] = {}, last_gpu_ = 0,
          host_ = 0;
  int64_t next_sample_ = 0;
  int64_t tid_ = 0;
  uint64_t corr_ = 0, emitted_ = 0, memcpys_ = 0, scopes_ = 0, scope_id_ = 0;
  uint64_t energy_mj_ = 912'000'000;  // since driver load
  uint64_t open_ids_[kOptimizer + 1] = {};
  uint32_t open_scope_ = 0;
  std::optional<KernelEvent> held_;
  std::vector<Launch> program_[3];  // the kernels of each phase of a step, in launch order
};

}  // namespace

void generateSession(const SessionSpec& spec, EventVisitor& out,
                     const std::function<uint64_t()>& bytes_written) {
  Generator(spec, out, bytes_written).run();
}

}  // namespace gpufl::bench
