#include "report/text/text_table.hpp"

#include <algorithm>
#include <map>

#include "core/output_width.hpp"
#include "report/text/format.hpp"
#include "report/text/short_names.hpp"

namespace gpufl::report {
namespace {

constexpr std::size_t kGap = 2;   // spaces between columns
constexpr std::size_t kFold = 4;  // extra indent of a name on its own line

}  // namespace

TextTable::TextTable(std::vector<TableColumn> columns, std::string name_header, bool kernel_names)
    : columns_(std::move(columns)),
      name_header_(std::move(name_header)),
      kernel_names_(kernel_names) {}

void TextTable::addRow(std::vector<std::string> cells, std::string name, std::string below) {
  cells.resize(columns_.size());
  rows_.push_back({std::move(cells), std::move(name), std::move(below)});
}

std::vector<std::string> TextTable::render(std::size_t width, std::size_t indent) const {
  const bool unlimited = width == kUnlimitedWidth;
  std::vector<std::size_t> natural(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    natural[c] = displayWidth(columns_[c].header);
    for (const Row& r : rows_) natural[c] = std::max(natural[c], displayWidth(r.cells[c]));
  }
  // A kernel name's natural width is that of its readable form (no parameters), what is shown
  // when there is room for it.
  std::vector<std::string> names;
  for (const Row& r : rows_) names.push_back(r.name);
  std::size_t name_natural = displayWidth(name_header_);
  const KernelNames readable(kernel_names_ ? names : std::vector<std::string>{}, 0, true);
  for (const std::string& n : names)
    name_natural = std::max(name_natural, displayWidth(kernel_names_ ? readable(n) : n));

  // Which columns stay: leave out the least important until a readable name fits.
  std::vector<bool> shown(columns_.size(), true);
  auto fixedWidth = [&] {
    std::size_t w = indent;
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (shown[c]) w += natural[c] + kGap;
    return w;
  };
  const std::size_t min_name = std::min(name_natural, min_name_);
  // Names go on lines of their own when even the columns that always stay leave no readable room
  // for them; then the other columns stay while they fit.
  std::size_t essential = indent;
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].drop == 0) essential += natural[c] + kGap;
  const bool fold = !unlimited && essential + min_name > width;
  std::vector<std::string> left_out;
  while (!unlimited && fixedWidth() + (fold ? 0 : min_name) > width + (fold ? kGap : 0)) {
    std::size_t victim = columns_.size();
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (shown[c] && columns_[c].drop > 0 &&
          (victim == columns_.size() || columns_[c].drop > columns_[victim].drop))
        victim = c;
    if (victim == columns_.size()) break;
    shown[victim] = false;
    left_out.push_back(columns_[victim].header);
  }
  const std::size_t fixed = fixedWidth();
  const std::size_t name_width = unlimited ? kUnlimitedWidth
                                 : fold    ? (width > indent + kFold ? width - indent - kFold : 1)
                                           : width - fixed;

  std::map<std::string, std::string> shorts;
  if (kernel_names_) {
    const KernelNames k(names, name_width, unlimited);
    for (const std::string& n : names) shorts.emplace(n, k(n));
  } else {
    for (const std::string& n : names) shorts.emplace(n, unlimited ? n : keepEnd(n, name_width));
  }

  const std::string pad(indent, ' ');
  auto cellsLine = [&](const std::vector<std::string>& cells) {
    std::string line = pad;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (!shown[c]) continue;
      line += columns_[c].right ? padLeft(cells[c], natural[c]) : padRight(cells[c], natural[c]);
      line += std::string(kGap, ' ');
    }
    return line;
  };
  auto trimmed = [](std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  };
  std::vector<std::string> out;
  std::vector<std::string> headers;
  for (const TableColumn& c : columns_) headers.push_back(c.header);
  out.push_back(trimmed(cellsLine(headers) + (fold ? "" : name_header_)));
  const std::string name_pad(indent + kFold, ' ');
  for (const Row& r : rows_) {
    const std::string& name = shorts[r.name];
    if (fold) {
      out.push_back(trimmed(cellsLine(r.cells)));
      out.push_back(name_pad + name);
    } else {
      out.push_back(trimmed(cellsLine(r.cells) + name));
    }
    // As given when it fits (it may align with runs of spaces), else wrapped.
    if (r.below.empty()) continue;
    if (unlimited || displayWidth(name_pad + r.below) <= width)
      out.push_back(trimmed(name_pad + r.below));
    else
      for (std::string& l : wrapText(r.below, width, name_pad, name_pad))
        out.push_back(std::move(l));
  }
  if (rule_) {
    std::size_t widest = indent;
    for (const std::string& l : out) widest = std::max(widest, displayWidth(l));
    out.insert(out.begin() + 1, pad + std::string(widest - indent, '-'));
  }
  if (!left_out.empty()) {
    std::string list;
    for (const std::string& h : left_out) list += (list.empty() ? "" : ", ") + h;
    for (std::string& l : wrapText("(left out to fit " + std::to_string(width) + " columns: " +
                                       list + "; --wide or a wider COLUMNS shows them)",
                                   width, pad, pad))
      out.push_back(std::move(l));
  }
  return out;
}

}  // namespace gpufl::report
