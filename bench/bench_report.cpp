// gpufl_bench_report: `gpufl report`'s cost against the floor of parsing the same bytes, side by
// side.
//   gpufl_bench_report [--kernels N] [--names K] [--runs R] [--cpu C] [--dir D] [--keep]
//   [--zstd-only] gpufl_bench_report --prefix P [--runs R] [--cpu C]          an existing prefix
//   (its files as they are); with --only floor|read|report, that figure once, unpinned, in this
//   process (for a profiler); --report-only with either: the report alone (no floor, no read, no
//   second core), for side-by-side runs of two builds
// Generates N kernel events (default 1,000,000) of K distinct kernel names (default 30) in the
// writer's layout, as a plain prefix and as one of zstd segments, then times, each in a fresh child
// process pinned to core C (default 0), interleaved R rounds (default 5):
//   floor   every line of every channel file read, split and parsed by simdjson On-Demand, every
//   field of
//           every record read (strings as views, numbers as int64/double): the cost of the bytes
//           themselves
//   read    log::readPrefix with a visitor that counts kernels: the reader's share of the report
//   report  report::reportFromPrefix (what `gpufl report` does, without the CLI's start); for zstd
//           also on two cores (C and C+1), where decompression runs on a thread of its own
// Prints medians: seconds, kernels/s, peak RSS, and report/floor. The page cache is warm after the
// first round.
#include <sched.h>
#include <simdjson.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "log/line_source.hpp"
#include "log/reader.hpp"
#include "report/report.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kSid = "5eed0001";

std::string sessionStart(bool devices) {
  return std::string(
             R"j({"type":"session_start","sid":"5eed0001","schema":1,"session_id":"5eed0001-0000-4000-8000-000000000001","app":"bench","pid":1,"host":"h","version":"0.1.0","engine":"None","start_ns":1000,"start_unix_ns":1700000000000000000,"options":{})j") +
         (devices ? R"j(,"devices":[]})j" : "}") + "\n";
}

// Kernel events per zstd segment (about 53 MB of text, near the writer's 64 MiB rotation).
constexpr uint64_t kSegmentKernels = 500'000;

// The device channel as the writer lays it out: kernel_defs, then kernel events with an absolute
// start and correlation id every 1024 events and at the start of each segment, differences between
// (dur_ns first, as the writer orders). `out(text, segment_ends)` gets whole lines.
void generateDevice(uint64_t kernels, uint32_t names,
                    const std::function<void(std::string_view, bool)>& out) {
  std::mt19937_64 rng(42);
  std::string text = sessionStart(true);
  char line[768];
  for (uint32_t k = 1; k <= names; ++k) {
    const int n = std::snprintf(
        line, sizeof line,
        R"j({"type":"kernel_def","sid":"%s","k":%u,"name":"_Z6kernelILi%uEEvPf","demangled":"void kernel<%u>(float*)","device":0,"context":1,"grid":"(1024,1,1)","block":"(256,1,1)","num_regs":32,"static_shared_bytes":0,"dyn_shared_bytes":0,"local_bytes":0,"occupancy":1,"reg_occupancy":1,"smem_occupancy":1,"warp_occupancy":1,"block_occupancy":1,"limiting_resource":"warps","max_active_blocks":8,"waves":0.97})j"
        "\n",
        kSid, k, k, k);
    text.append(line, static_cast<size_t>(n));
  }
  int64_t start = 5'000'000'000'000;
  uint64_t corr = 100;
  for (uint64_t i = 0; i < kernels; ++i) {
    const int64_t dt = static_cast<int64_t>(rng() % 40000) - 2000;  // sometimes negative
    const uint64_t dcorr = 1 + rng() % 2;
    const int64_t dur = 1500 + static_cast<int64_t>(rng() % 90000);
    const unsigned k = 1 + static_cast<unsigned>(rng() % names);
    start += dt;
    corr += dcorr;
    const bool segment_starts = i > 0 && i % kSegmentKernels == 0;
    if (segment_starts) {
      out(text, true);
      text.clear();
    }
    const int n =
        i % 1024 == 0 || segment_starts
            ? std::snprintf(
                  line, sizeof line,
                  R"j({"type":"kernel_event","sid":"%s","dur_ns":%lld,"k":%u,"stream":7,"scope":0,"corr":%llu,"start_ns":%lld})j"
                  "\n",
                  kSid, static_cast<long long>(dur), k, static_cast<unsigned long long>(corr),
                  static_cast<long long>(start))
            : std::snprintf(
                  line, sizeof line,
                  R"j({"type":"kernel_event","sid":"%s","dur_ns":%lld,"k":%u,"stream":7,"scope":0,"dcorr":%llu,"dt_ns":%lld})j"
                  "\n",
                  kSid, static_cast<long long>(dur), k, static_cast<unsigned long long>(dcorr),
                  static_cast<long long>(dt));
    text.append(line, static_cast<size_t>(n));
    if (text.size() > (size_t{8} << 20)) {
      out(text, false);
      text.clear();
    }
  }
  text += R"j({"type":"session_end","sid":"5eed0001","end_ns":9000000000000,"kernels":)j" +
          std::to_string(kernels) + ",\"memcpys\":0,\"scopes\":0}\n";
  out(text, false);
}

struct Inputs {
  std::string plain, zst;  // prefixes
  uint64_t text_bytes = 0, zst_bytes = 0;
};

// Writes both prefixes in bounded memory; the zstd one as 64 MiB segments like the writer's
// rotation.
Inputs writeInputs(const std::string& dir, uint64_t kernels, uint32_t names, bool zstd_only) {
  Inputs in{dir + "/gpufl_bench_report_plain", dir + "/gpufl_bench_report_zst"};
  std::ofstream plain;
  if (!zstd_only) plain.open(in.plain + ".device.log", std::ios::binary);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::ofstream seg;
  uint64_t seg_no = 0;
  std::string buf(ZSTD_CStreamOutSize(), '\0');
  const auto pump = [&](std::string_view data, ZSTD_EndDirective mode) {
    ZSTD_inBuffer input{data.data(), data.size(), 0};
    for (;;) {
      ZSTD_outBuffer output{buf.data(), buf.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx, &output, &input, mode);
      seg.write(buf.data(), static_cast<std::streamsize>(output.pos));
      in.zst_bytes += output.pos;
      if (mode == ZSTD_e_end ? left == 0 : input.pos == input.size) break;
    }
  };
  const auto segment = [&](bool last) {
    if (seg.is_open()) {
      pump({}, ZSTD_e_end);
      seg.close();
    }
    if (last) return;
    char name[32];
    std::snprintf(name, sizeof name, ".device.%06llu.log.zst",
                  static_cast<unsigned long long>(++seg_no));
    seg.open(in.zst + name, std::ios::binary);
  };
  segment(false);
  generateDevice(kernels, names, [&](std::string_view text, bool segment_ends) {
    if (plain.is_open()) plain.write(text.data(), static_cast<std::streamsize>(text.size()));
    in.text_bytes += text.size();
    pump(text, ZSTD_e_continue);
    if (segment_ends) segment(false);
  });
  segment(true);
  ZSTD_freeCCtx(cctx);
  for (const std::string& prefix : {in.plain, in.zst}) {
    if (zstd_only && prefix == in.plain) continue;
    std::ofstream(prefix + ".scope.log") << sessionStart(false);
    std::ofstream(prefix + ".system.log") << sessionStart(false);
  }
  return in;
}

// The floor: every record's every field, through the same bounded line buffer the reader uses.
uint64_t parseEveryField(const std::string& prefix) {
  simdjson::ondemand::parser parser;
  uint64_t sum = 0;
  for (const auto channel :
       {gpufl::Channel::Device, gpufl::Channel::Scope, gpufl::Channel::System}) {
    for (const std::string& file : gpufl::log::channelFiles(prefix, channel)) {
      std::string error;
      auto source =
          gpufl::log::LineSource::openFile(file, gpufl::log::kDefaultMaxLineBytes, &error);
      gpufl::log::Line line;
      while (source && source->next(line)) {
        if (line.text.empty()) continue;
        auto doc = parser.iterate(line.text.data(), line.text.size(),
                                  line.text.size() + gpufl::log::kLinePadding);
        simdjson::ondemand::object obj;
        if (doc.get_object().get(obj)) continue;
        for (auto field : obj) {
          std::string_view key;
          if (field.unescaped_key().get(key)) break;
          auto value = field.value();
          simdjson::ondemand::json_type type;
          if (value.type().get(type)) break;
          switch (type) {
            case simdjson::ondemand::json_type::string: {
              std::string_view s;
              if (!value.get_string().get(s)) sum += s.size();
              break;
            }
            case simdjson::ondemand::json_type::number: {
              int64_t i;
              double d;
              if (!value.get_int64().get(i))
                sum += static_cast<uint64_t>(i);
              else if (!value.get_double().get(d))
                sum += static_cast<uint64_t>(d);
              break;
            }
            case simdjson::ondemand::json_type::boolean: {
              bool b;
              if (!value.get_bool().get(b)) sum += b;
              break;
            }
            default:  // objects, arrays and null (session_start's options only): skipped unread
              break;
          }
        }
      }
    }
  }
  return sum;
}

// The reader alone: every record decoded and delivered to a visitor that only counts kernels (the
// report's aggregation is the difference between this and `report`).
struct KernelCounter : gpufl::EventVisitor {
  uint64_t kernels = 0;
  void onKernel(const gpufl::KernelEvent&) override { ++kernels; }
};

uint64_t readOnly(const std::string& prefix) {
  KernelCounter counter;
  const auto r = gpufl::log::readPrefix(prefix, gpufl::log::ReadOptions{}, counter);
  if (r.warning_count > 0)
    std::fprintf(stderr, "read: %llu warnings\n", static_cast<unsigned long long>(r.warning_count));
  return counter.kernels;
}

uint64_t report(const std::string& prefix) {
  gpufl::report::ReportOptions options;
  options.generated_at = "bench";
  const auto r = gpufl::report::reportFromPrefix(prefix, "", options, false);
  if (!r.ok) std::fprintf(stderr, "report failed: %s\n", r.error.c_str());
  return r.text.size();
}

struct Sample {
  double seconds = 0;
  double peak_mb = 0;
};

// Runs `task` in a child pinned to `cpus` cores from `cpu` on, so that each figure has its own peak
// RSS.
Sample measure(int cpu, const std::function<uint64_t()>& task, int cpus = 1) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < cpus; ++i) CPU_SET(cpu + i, &set);
    sched_setaffinity(0, sizeof set, &set);
    const auto t0 = Clock::now();
    const uint64_t result = task();
    Sample s;
    s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    s.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
    (void)!write(fds[1], &s, sizeof s);
    _exit(result == 0 ? 1 : 0);  // nothing read or reported: the figure would be meaningless
  }
  close(fds[1]);
  Sample s;
  (void)!read(fds[0], &s, sizeof s);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "a measured run read or reported nothing (see above): no figures\n");
    std::exit(1);
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// --report-only: only the report on one core (no floor, no read, no second core), for side-by-side
// runs of two builds.
bool g_report_only = false;

// With `second_core`, the report also runs on two cores (zstd decompression gets a thread).
void compare(const char* label, const std::string& prefix, uint64_t kernels, int runs, int cpu,
             bool second_core) {
  std::vector<double> floor_s, floor_mb, report_s, report_mb, two_s, read_s;
  for (int i = 0; i < runs; ++i) {
    if (g_report_only) second_core = false;
    const Sample f =
        g_report_only ? Sample{} : measure(cpu, [&] { return parseEveryField(prefix); });
    if (!g_report_only) read_s.push_back(measure(cpu, [&] { return readOnly(prefix); }).seconds);
    const Sample r = measure(cpu, [&] { return report(prefix); });
    floor_s.push_back(f.seconds);
    floor_mb.push_back(f.peak_mb);
    report_s.push_back(r.seconds);
    report_mb.push_back(r.peak_mb);
    if (second_core)
      two_s.push_back(measure(
                          cpu, [&] { return report(prefix); }, 2)
                          .seconds);
  }
  const double fs = median(floor_s), rs = median(report_s);
  std::printf(
      "%-6s floor %7.3f s (%5.2f M kernels/s, %5.0f MB)  report %7.3f s (%5.2f M kernels/s, %5.0f "
      "MB)"
      "  report/floor %.2fx  [report runs:",
      label, fs, static_cast<double>(kernels) / fs / 1e6, median(floor_mb), rs,
      static_cast<double>(kernels) / rs / 1e6, median(report_mb), rs / fs);
  for (double s : report_s) std::printf(" %.3f", s);
  std::printf("]\n");
  const double ds = median(read_s);
  std::printf("%-6s read  %7.3f s (the reader alone, events counted)  read/floor %.2fx\n", label,
              ds, ds / fs);
  if (second_core) {
    const double ts = median(two_s);
    std::printf("%-6s report on 2 cores (decompression thread) %7.3f s  report/floor %.2fx\n",
                label, ts, ts / fs);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t kernels = 1'000'000, names = 30;
  int runs = 5, cpu = 0;
  std::string dir = std::filesystem::temp_directory_path().string(), prefix;
  std::string_view only;  // --only floor|read|report with --prefix
  bool keep = false, zstd_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--report-only") {
      g_report_only = true;
      continue;
    }
    if (arg == "--keep" || arg == "--zstd-only") {
      (arg == "--keep" ? keep : zstd_only) = true;
      continue;
    }
    const std::string_view value = i + 1 < argc ? argv[++i] : "";
    const auto number = [&](auto& out) {
      std::from_chars(value.data(), value.data() + value.size(), out);
    };
    if (arg == "--kernels")
      number(kernels);
    else if (arg == "--names")
      number(names);
    else if (arg == "--runs")
      number(runs);
    else if (arg == "--cpu")
      number(cpu);
    else if (arg == "--dir")
      dir = value;
    else if (arg == "--prefix")
      prefix = value;
    else if (arg == "--only")
      only = value;
    else {
      std::fprintf(stderr,
                   "usage: %s [--kernels N] [--names K] [--runs R] [--cpu C] [--dir D] [--keep] "
                   "[--zstd-only] | "
                   "--prefix P [--runs R] [--cpu C] [--only floor|read|report] [--report-only]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!prefix.empty() && !only.empty()) {
    // One figure, once, in this process: for a profiler (perf record -g gpufl_bench_report --only
    // read ...).
    const auto t0 = Clock::now();
    const uint64_t result = only == "floor"  ? parseEveryField(prefix)
                            : only == "read" ? readOnly(prefix)
                                             : report(prefix);
    std::printf("%s %.3f s (%llu)\n", std::string(only).c_str(),
                std::chrono::duration<double>(Clock::now() - t0).count(),
                static_cast<unsigned long long>(result));
    return 0;
  }
  if (!prefix.empty()) {
    compare("prefix", prefix, 0, runs, cpu, true);
    return 0;
  }
  if (names < 1) names = 1;
  const auto t0 = Clock::now();
  // Generated in a child like the measurements, so that they fork from a small parent.
  std::error_code made_dir;
  std::filesystem::create_directories(dir, made_dir);
  if (made_dir) {
    std::fprintf(stderr, "cannot create --dir %s: %s\n", dir.c_str(), made_dir.message().c_str());
    return 1;
  }
  Inputs in{dir + "/gpufl_bench_report_plain", dir + "/gpufl_bench_report_zst"};
  {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    if (fork() == 0) {
      const Inputs made = writeInputs(dir, kernels, static_cast<uint32_t>(names), zstd_only);
      const uint64_t sizes[2] = {made.text_bytes, made.zst_bytes};
      (void)!write(fds[1], sizes, sizeof sizes);
      _exit(0);
    }
    close(fds[1]);
    uint64_t sizes[2] = {0, 0};
    (void)!read(fds[0], sizes, sizeof sizes);
    close(fds[0]);
    wait(nullptr);
    in.text_bytes = sizes[0];
    in.zst_bytes = sizes[1];
  }
  if (in.zst_bytes == 0) {
    std::fprintf(stderr, "could not write the inputs under --dir %s\n", dir.c_str());
    return 1;
  }
  std::printf(
      "input: %llu kernels under %llu names, %.1f MB of text, %.1f MB as zstd (%.2f B/kernel); "
      "generated in %.1f s; %d rounds on core %d, medians\n",
      static_cast<unsigned long long>(kernels), static_cast<unsigned long long>(names),
      static_cast<double>(in.text_bytes) / 1e6, static_cast<double>(in.zst_bytes) / 1e6,
      static_cast<double>(in.zst_bytes) / static_cast<double>(kernels),
      std::chrono::duration<double>(Clock::now() - t0).count(), runs, cpu);
  std::fflush(stdout);
  if (!zstd_only) compare("plain", in.plain, kernels, runs, cpu, false);
  compare("zstd", in.zst, kernels, runs, cpu, true);
  if (!keep) {
    for (const std::string& p : {in.plain, in.zst})
      for (const auto c : {gpufl::Channel::Device, gpufl::Channel::Scope, gpufl::Channel::System})
        for (const std::string& f : gpufl::log::channelFiles(p, c)) std::filesystem::remove(f);
  }
  return 0;
}
