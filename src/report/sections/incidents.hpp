// The Incidents section (incidents_render.cpp): first in the report when a session has incidents or
// ended without a session_end. Its data is the model's IncidentSummary (r.incidents), filled by
// IncidentCollector (aggregate/incidents.hpp); what to try after each kind of incident is shared by
// its text and its JSON.
#pragma once

#include <string>
#include <vector>

#include "report/json/json_writer.hpp"
#include "report/model/report_model.hpp"
#include "report/model/report_options.hpp"
#include "report/text/text_out.hpp"

namespace gpufl::report {

// Whether the text report shows the section: the session has incidents, or no session_end.
bool incidentsInText(const Report& r);
// For a session without session_end, a line saying so; then the "Incidents" banner and one block
// per incident.
void renderIncidentsText(TextOut& out, const Report& r, const ReportOptions& options);
// "incidents": one object per incident (an empty array when none).
void renderIncidentsJson(JsonWriter& w, const Report& r, const ReportOptions& options);
// What to try after `incident`, most useful first (shown in the text and the JSON).
std::vector<std::string> incidentAdvice(const IncidentView& incident, const Report& r);
// The PC-sampling profiles of the suspects of a hang (those with samples), for where they spin.
std::vector<const FunctionProfile*> hangProfiles(const IncidentView& incident, const Report& r);

}  // namespace gpufl::report
