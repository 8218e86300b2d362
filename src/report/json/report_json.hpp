// The JSON writers of the report model's types, generated from their field tables
// (model/report_fields.hpp) by model_json.hpp. A section writes its part with
// `json::put(w, "key", r.part, r)`.
#pragma once

#include "report/json/model_json.hpp"
#include "report/model/report_fields.hpp"

namespace gpufl::report {

// clang-format off
GFL_REPORT_JSON_FIELDS(SessionSummary)
GFL_REPORT_JSON_FIELDS(DeviceInfo)
GFL_REPORT_JSON_FIELDS(DurationSummary)
GFL_REPORT_JSON_FIELDS(KernelSummary)
GFL_REPORT_JSON_FIELDS(KernelGroup)
GFL_REPORT_JSON_FIELDS(Occupancy)
GFL_REPORT_JSON_FIELDS(KernelCard)
GFL_REPORT_JSON_FIELDS(CardSass)
GFL_REPORT_JSON_FIELDS(CardStall)
GFL_REPORT_JSON_FIELDS(CardBandwidth)
GFL_REPORT_JSON_FIELDS(ClockWindow)
GFL_REPORT_JSON_FIELDS(CardAdvice)
GFL_REPORT_JSON_FIELDS(TransferSummary)
GFL_REPORT_JSON_FIELDS(TransferStats)
GFL_REPORT_JSON_FIELDS(SyncSummary)
GFL_REPORT_JSON_FIELDS(SyncStats)
GFL_REPORT_JSON_FIELDS(SyncScopeStats)
GFL_REPORT_JSON_FIELDS(MemorySummary)
GFL_REPORT_JSON_FIELDS(MemoryKindStats)
GFL_REPORT_JSON_FIELDS(MemoryScopeStats)
GFL_REPORT_JSON_FIELDS(GpuSystemStats)
GFL_REPORT_JSON_FIELDS(Stat)
GFL_REPORT_JSON_FIELDS(ThrottleShare)
GFL_REPORT_JSON_FIELDS(HostSystemStats)
GFL_REPORT_JSON_FIELDS(ScopeSummary)
GFL_REPORT_JSON_FIELDS(ScopeRow)
GFL_REPORT_JSON_FIELDS(ProfileSummary)
GFL_REPORT_JSON_FIELDS(SassTotals)
GFL_REPORT_JSON_FIELDS(FunctionProfile)
GFL_REPORT_JSON_FIELDS(StallCount)
GFL_REPORT_JSON_FIELDS(HotInstruction)
GFL_REPORT_JSON_FIELDS(Hint)
GFL_REPORT_JSON_FIELDS(RangeCounterRow)
GFL_REPORT_JSON_FIELDS(CollectionInfo)
GFL_REPORT_JSON_FIELDS(Note)
// clang-format on

}  // namespace gpufl::report
