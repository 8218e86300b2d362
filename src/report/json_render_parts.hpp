// Pieces of renderJson, one per report area (internal to src/report).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/json_writer.hpp"
#include "report/report_model.hpp"

namespace gpufl::report::json {

void durations(JsonWriter& w, std::string_view name, const DurationSummary& d);
void hintList(JsonWriter& w, std::string_view name, const std::vector<Hint>& hs);

void transfers(JsonWriter& w, const TransferSummary& t);
// "syncs", only for sessions that recorded sync events (asked for them, or have some).
void syncs(JsonWriter& w, const SyncSummary& s, const ScopeSummary& scopes);
// "memory", only for sessions that recorded memory events.
void memory(JsonWriter& w, const MemorySummary& m, const ScopeSummary& scopes);
void system(JsonWriter& w, const std::vector<GpuSystemStats>& gpus, const HostSystemStats& host);
void scopes(JsonWriter& w, const ScopeSummary& s);
void profile(JsonWriter& w, const ProfileSummary& p);
void benchmarks(JsonWriter& w, const std::vector<BenchmarkResult>& b);
void collection(JsonWriter& w, const CollectionInfo& c);
void cards(JsonWriter& w, const Report& r);

}  // namespace gpufl::report::json
