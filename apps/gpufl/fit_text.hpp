// The CLI's plain text fitted to the output width (core/output_width): help (CLI11 lays it out in
// two columns and never wraps), `gpufl occupancy` and `gpufl doctor` (label/value lines and small
// tables). Tables that can leave out columns use report/text/text_table instead.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace CLI {
class Formatter;
}

namespace gpufl::cli {

// `text` with every line longer than `width` wrapped; lines that fit are kept as they are. A
// wrapped line's continuation lines start under its last column that leaves room for text (a
// column starts after a run of two or more spaces: help's descriptions, a table's last cell), or
// under the line's own start when it has none.
std::string fitLines(const std::string& text, std::size_t width);

// A CLI11 formatter whose help is fitLines'ed to `width`; subcommands added after it is set on an
// app inherit it.
std::shared_ptr<CLI::Formatter> helpFormatter(std::size_t width);

}  // namespace gpufl::cli
