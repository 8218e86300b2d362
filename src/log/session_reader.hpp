// The part of readPrefix that does not care where lines come from: session scan and selection, then
// decoding of the chosen session. readPrefix feeds it files; tests and the fuzz target feed it
// memory.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "log/line_source.hpp"
#include "log/reader.hpp"

namespace gpufl::log {

class WarningList;

// Opens one input by name; nullptr with *error set when it cannot.
using SourceOpener =
    std::function<std::unique_ptr<LineSource>(const std::string& name, std::string* error)>;

// The sessions whose session_start appears in `inputs`, oldest first (by start_unix_ns, then as
// seen), read from the cheapest channel's files only (see reader.cpp); the other channels are
// scanned too when that lists no session, or (`want` non-empty) none whose id or sid starts with
// `want`. Unreadable inputs and lines are passed over silently: decoding reports them.
// `listed_from` (may be null) gets the channel listed, empty when every channel was scanned.
std::vector<SessionListing> listSessionsOnce(const std::vector<std::string>& inputs,
                                             const SourceOpener& open, const std::string& want,
                                             std::string* listed_from);

// Chooses the session per `options`, then decodes `inputs` in order into `visitor`. Fills every
// field of `result` except found_files; warnings go to `warnings`. Does not throw for bad input.
void readInputs(const std::vector<std::string>& inputs, const SourceOpener& open,
                const ReadOptions& options, EventVisitor& visitor, WarningList& warnings,
                ReadResult& result);

}  // namespace gpufl::log
