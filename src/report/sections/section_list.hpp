// The sections of the report, listed once, in the order of the text report (the JSON report follows
// the same order but for Section::json_after). Each `S(kName)` is a `Section kName` defined in its
// own file of this folder (section.hpp says what a section provides).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "report/sections/section.hpp"

// clang-format off
#define GFL_REPORT_SECTIONS(S) \
  S(kIncidents)                \
  S(kSession)                  \
  S(kKernels)                  \
  S(kCards)                    \
  S(kBenchmarks)               \
  S(kTransfers)                \
  S(kSyncs)                    \
  S(kMemory)                   \
  S(kSystem)                   \
  S(kScopes)                   \
  S(kProfile)                  \
  S(kHints)                    \
  S(kCollection)               \
  S(kTraceHealth)
// clang-format on

namespace gpufl::report {

// Every section, in list order.
std::span<const Section* const> reportSections();

// A new collector for each section that has one (Section::collector), in list order.
std::vector<std::unique_ptr<SectionCollector>> sectionCollectors();

}  // namespace gpufl::report
