// gpufl_gen_session: writes synthetic training sessions (bench/synthetic_session.hpp) through the
// real LogWriter.
//   gpufl_gen_session --prefix P --kernels N [--seed S] [--sessions K] [--rotate-bytes B]
//   [--zstd-level L] [--iid] [--slower K:F]
// K sessions of N kernels each are appended under P; the same arguments give byte-identical logs.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "log/log_writer.hpp"
#include "synthetic_session.hpp"

namespace {

constexpr const char* kUsage =
    "usage: gpufl_gen_session --prefix P --kernels N [--seed S] [--sessions K] [--rotate-bytes B] "
    "[--zstd-level L] [--iid] [--slower K:F]\n"
    "  writes K (default 1) synthetic H200 training sessions of N kernels each to "
    "P.{device,scope,system}.log\n"
    "  --rotate-bytes 0 never rotates (default: the writer's 64 MiB)\n"
    "  --iid draws every launch independently instead of repeating one kernel program per step\n"
    "  --slower K:F makes every launch of kernel def K take F times as long (a planted regression "
    "for gpufl diff)\n";

bool parseNumber(std::string_view text, uint64_t* out) {
  const auto r = std::from_chars(text.data(), text.data() + text.size(), *out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

}  // namespace

int main(int argc, char** argv) {
  gpufl::log::LogWriterOptions options;
  uint64_t kernels = 0, seed = 1, sessions = 1, level = 3;
  bool have_kernels = false, iid = false;
  uint64_t slower_kernel = 0;
  double slower_factor = 1.0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--iid") {
      iid = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "gpufl_gen_session: %s needs a value\n%s", argv[i], kUsage);
      return 2;
    }
    const std::string_view value = argv[++i];
    bool ok = true;
    if (arg == "--prefix") {
      options.prefix = value;
    } else if (arg == "--kernels") {
      ok = parseNumber(value, &kernels);
      have_kernels = true;
    } else if (arg == "--seed") {
      ok = parseNumber(value, &seed);
    } else if (arg == "--sessions") {
      ok = parseNumber(value, &sessions);
    } else if (arg == "--rotate-bytes") {
      ok = parseNumber(value, &options.rotate_bytes);
    } else if (arg == "--slower") {
      const size_t colon = value.find(':');
      ok = colon != std::string_view::npos && parseNumber(value.substr(0, colon), &slower_kernel);
      if (ok) {
        const std::string f(value.substr(colon + 1));
        char* end = nullptr;
        slower_factor = std::strtod(f.c_str(), &end);
        ok = !f.empty() && end == f.c_str() + f.size() && slower_factor > 0;
      }
    } else if (arg == "--zstd-level") {
      ok = parseNumber(value, &level) && level >= 1 && level <= 22;
    } else {
      std::fprintf(stderr, "gpufl_gen_session: unknown option %s\n%s", argv[i - 1], kUsage);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "gpufl_gen_session: bad value for %s: %s\n", argv[i - 1], argv[i]);
      return 2;
    }
  }
  if (options.prefix.empty() || !have_kernels) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  options.zstd_level = static_cast<int>(level);

  std::string error;
  auto writer = gpufl::log::LogWriter::open(options, &error);
  if (!writer) {
    std::fprintf(stderr, "gpufl_gen_session: %s\n", error.c_str());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::function<uint64_t()> bytes = [&] { return writer->stats().bytes_written; };
  for (uint64_t s = 0; s < sessions; ++s) {
    gpufl::bench::SessionSpec spec{kernels, seed, static_cast<uint32_t>(s), !iid};
    spec.slower_kernel = static_cast<uint32_t>(slower_kernel);
    spec.slower_factor = slower_factor;
    gpufl::bench::generateSession(spec, *writer, bytes);
  }
  writer->close();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto st = writer->stats();
  std::printf(
      "wrote %llu sessions, %llu kernels, %llu records, %llu bytes (%.2f bytes/record) in %.2f s; "
      "%llu segments rotated, %llu compressed\n",
      (unsigned long long)sessions, (unsigned long long)(kernels * sessions),
      (unsigned long long)st.records, (unsigned long long)st.bytes_written,
      st.records ? double(st.bytes_written) / double(st.records) : 0.0, secs,
      (unsigned long long)st.segments_rotated, (unsigned long long)st.segments_compressed);
  if (st.write_errors || st.compress_errors) {
    std::fprintf(
        stderr,
        "gpufl_gen_session: %llu write errors, %llu compression errors, %llu bytes dropped: %s\n",
        (unsigned long long)st.write_errors, (unsigned long long)st.compress_errors,
        (unsigned long long)st.bytes_dropped, st.last_error.c_str());
    return 1;
  }
  return 0;
}
