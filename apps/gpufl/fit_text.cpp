#include "fit_text.hpp"

#include <CLI/CLI.hpp>
#include <sstream>

#include "core/output_width.hpp"
#include "report/text/format.hpp"

namespace gpufl::cli {
namespace {

// A column that leaves less room than this is not worth keeping: continuation lines go further
// left.
constexpr std::size_t kMinRoom = 24;

// Where continuation lines of `line` start: the last column start (after a run of two or more
// spaces that follows text) that leaves kMinRoom columns, else the line's own indent, else 0.
std::size_t continuationColumn(const std::string& line, std::size_t width) {
  const std::size_t indent = line.find_first_not_of(' ');
  std::size_t best = indent + kMinRoom <= width ? indent : 0;
  for (std::size_t gap = line.find("  ", indent); gap != std::string::npos;
       gap = line.find("  ", gap)) {
    const std::size_t next = line.find_first_not_of(' ', gap);
    if (next == std::string::npos || next + kMinRoom > width) break;
    best = next;
    gap = next;
  }
  return best;
}

class WrappingFormatter final : public CLI::Formatter {
 public:
  explicit WrappingFormatter(std::size_t width) : width_(width) {}
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return fitLines(CLI::Formatter::make_help(app, std::move(name), mode), width_);
  }

 private:
  std::size_t width_;
};

}  // namespace

std::string fitLines(const std::string& text, std::size_t width) {
  if (width == kUnlimitedWidth) return text;
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (report::displayWidth(line) <= width || line.find_first_not_of(' ') == std::string::npos) {
      out += line + "\n";
      continue;
    }
    const std::size_t at = continuationColumn(line, width);
    for (const std::string& l :
         report::wrapText(line.substr(at), width, line.substr(0, at), std::string(at, ' ')))
      out += l + "\n";
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

std::shared_ptr<CLI::Formatter> helpFormatter(std::size_t width) {
  return std::make_shared<WrappingFormatter>(width);
}

}  // namespace gpufl::cli
