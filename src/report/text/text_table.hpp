// A text table fitted to the output width (core/output_width): the way every CLI table narrows.
//
// Columns of values, then a name column last. When the table is wider than the output, the names
// are shortened as a set (KernelNames: siblings stay distinct), down to a readable minimum; past
// that the columns that matter least are left out, in the order their `drop` says, and a closing
// line names them; past that each name moves to a line of its own under its row. Nothing is cut
// at random, and what was left out is said.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpufl::report {

struct TableColumn {
  std::string header;
  bool right = true;  // numbers right-aligned, words left
  int drop = 0;       // 0: always shown; otherwise left out when short of room, highest first
};

class TextTable {
 public:
  // `kernel_names`: names are kernel names (shortened as a set by the kernel-name shortener);
  // otherwise they are cut from the left, keeping their end ("...ep/forward").
  TextTable(std::vector<TableColumn> columns, std::string name_header, bool kernel_names = true);

  // A line of '-' under the headers, as wide as the table (the report's style).
  void ruleUnderHeaders() { rule_ = true; }
  // Columns are left out before the names get narrower than this (default kMinNameWidth).
  void keepNamesAtLeast(std::size_t width) { min_name_ = width; }

  // `cells`: one per column. `below`: an optional line shown under the row, wrapped to the width.
  void addRow(std::vector<std::string> cells, std::string name, std::string below = "");

  // The table in lines of at most `width` columns (kUnlimitedWidth: everything, names whole), each
  // starting with `indent` spaces.
  std::vector<std::string> render(std::size_t width, std::size_t indent = 2) const;

  // The narrowest a name column is made before columns are left out, unless keepNamesAtLeast
  // says otherwise.
  static constexpr std::size_t kMinNameWidth = 24;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::string name, below;
  };
  std::vector<TableColumn> columns_;
  std::string name_header_;
  bool kernel_names_;
  bool rule_ = false;
  std::size_t min_name_ = kMinNameWidth;
  std::vector<Row> rows_;
};

}  // namespace gpufl::report
