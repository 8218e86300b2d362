// Number and text formatting shared by the text report: units, separators, padding, wrapping.
// Conventions (fixed, the goldens depend on them):
//   durations  "17.40 s", "221.64 ms", "3.20 us", "850 ns" (unit chosen after rounding, so never
//   "1000.00 ms") sizes      binary multiples labelled "B", "KB", "MB", "GB", "TB" (1 KB = 1024 B),
//   one decimal: "64.0 MB" rates      decimal multiples, as bandwidth is quoted: "11.68 GB/s" (1
//   GB/s = 1e9 B/s), "850.00 MB/s" counts     thousands separators: "13,268"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/events.hpp"

namespace gpufl::report {

std::string formatDuration(double ns);
std::string formatBytes(uint64_t bytes);
std::string formatRate(double bytes_per_s);
std::string formatPercent(double pct, int decimals = 1);  // 97.24 -> "97.2%"
std::string formatCount(uint64_t n);                      // 13268 -> "13,268"
std::string formatFixed(double value, int decimals);      // printf("%.*f")
std::string formatDim3(const Dim3& d);                    // "(128,128,1)"
std::string formatEnergy(double joules);  // "120.0 mJ", "12.3 J", "1.27 kJ", "3.40 MJ"
std::string formatMiB(uint64_t bytes);    // "1105" (rounded MiB, no unit)

// Width in terminal columns of UTF-8 text (code points; the report uses no wide characters).
size_t displayWidth(std::string_view s);
std::string padRight(std::string_view s, size_t width);  // left-aligned in `width` columns
std::string padLeft(std::string_view s, size_t width);   // right-aligned in `width` columns
// Centred in `width` columns, no trailing spaces; an odd padding puts the extra space on the left.
std::string centerText(std::string_view s, size_t width);

// Readable kernel name in at most `width` columns: drops a leading "void " and the parameter list,
// then collapses template arguments ("foo<...>"), then cuts the middle ("head...tail").
std::string shortenKernelName(std::string_view name, size_t width);

// The end of `s` in at most `width` columns, "..." first when cut: the telling end of a scope path
// ("...step/forward").
std::string keepEnd(std::string_view s, size_t width);

// Greedy word wrap: the first line starts with `first`, the others with `rest`; lines stay within
// `width` columns (a word longer than a line is cut, after a '/', ',', ';', '=' or ':' where it
// has one) unless the prefix alone is that wide.
std::vector<std::string> wrapText(std::string_view text, size_t width, std::string_view first,
                                  std::string_view rest);

}  // namespace gpufl::report
