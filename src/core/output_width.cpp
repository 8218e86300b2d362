#include "core/output_width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace gpufl {
namespace {

// A positive decimal number, or nothing (empty, signs, junk and absurd values are ignored as if
// COLUMNS were unset).
std::optional<std::size_t> parseColumns(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::size_t v = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return std::nullopt;
    v = v * 10 + static_cast<std::size_t>(*p - '0');
    if (v > 100000) return std::nullopt;
  }
  if (v == 0) return std::nullopt;
  return v;
}

}  // namespace

std::size_t outputWidthFrom(bool wide, const char* columns_env,
                            std::optional<std::size_t> terminal_columns) {
  if (wide) return kUnlimitedWidth;
  if (auto c = parseColumns(columns_env)) return std::max(*c, kMinOutputWidth);
  if (terminal_columns && *terminal_columns > 0)
    return std::max(*terminal_columns, kMinOutputWidth);
  return kDefaultOutputWidth;
}

std::optional<std::size_t> terminalColumns(int fd) {
  if (isatty(fd) == 0) return std::nullopt;
  struct winsize ws {};
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return std::nullopt;
  return ws.ws_col;
}

std::size_t outputWidth(bool wide, int fd) {
  return outputWidthFrom(wide, std::getenv("COLUMNS"), terminalColumns(fd));
}

}  // namespace gpufl
