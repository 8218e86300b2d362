// How wide text output may be: the one rule every text renderer of the CLI follows.
//
// --wide (or a renderer's equivalent) means no limit. Otherwise COLUMNS when it holds a positive
// number (a user's or a script's explicit choice, as in other tools), then the terminal's width
// when stdout is a terminal, else 80 (a pipe or a file: what a reader's terminal most likely has).
#pragma once

#include <cstddef>
#include <optional>

namespace gpufl {

// No limit: tables show every column and names whole.
inline constexpr std::size_t kUnlimitedWidth = static_cast<std::size_t>(-1);
// Where nothing says otherwise (a pipe, a file).
inline constexpr std::size_t kDefaultOutputWidth = 80;
// Narrower than this, tables cannot hold a number and a name: a COLUMNS below it is raised to it.
inline constexpr std::size_t kMinOutputWidth = 40;

// The rule on explicit inputs (tests): `columns_env` is COLUMNS' value or null, `terminal_columns`
// the terminal's width when stdout is one.
std::size_t outputWidthFrom(bool wide, const char* columns_env,
                            std::optional<std::size_t> terminal_columns);

// The width of the terminal `fd` is, or nothing when it is not one.
std::optional<std::size_t> terminalColumns(int fd);

// The rule for this process: COLUMNS from the environment, the terminal's width when `fd` is a
// terminal.
std::size_t outputWidth(bool wide, int fd);

}  // namespace gpufl
