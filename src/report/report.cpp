// reportFromPrefix: the log reader streams one session into a ReportBuilder, which renders it.
#include "report/report.hpp"

#include "log/reader.hpp"
#include "report/report_builder.hpp"

namespace gpufl::report {

ReportOutput reportFromPrefix(const std::string& prefix, const std::string& session,
                              const ReportOptions& options, bool as_json) {
  ReportOutput out;
  ReportBuilder builder;
  log::ReadOptions read_options;
  read_options.session = session;
  log::ReadResult result = log::readPrefix(prefix, read_options, builder);
  for (const log::ReadWarning& w : result.warnings) {
    std::string where = w.file;
    if (w.line > 0) where += ":" + std::to_string(w.line);
    out.warnings.push_back(where + ": " + w.message);
  }
  if (result.warning_count > result.warnings.size())
    out.warnings.push_back("(" + std::to_string(result.warning_count - result.warnings.size()) +
                           " more warnings not shown)");
  if (!result.found_files) {
    out.error = "no GPU Flight logs found for prefix '" + prefix + "' (expected " + prefix +
                ".device.log, " + prefix + ".scope.log or " + prefix + ".system.log)";
    return out;
  }
  if (!result.any_readable) {
    out.error = session.empty()
                    ? "no readable session under prefix '" + prefix + "'"
                    : "no session matching '" + session + "' under prefix '" + prefix + "'";
    return out;
  }
  builder.setReaderWarnings(result.warning_count);
  Report report = builder.build();
  out.ok = true;
  out.text = as_json ? renderJson(report, options) : renderText(report, options);
  return out;
}

}  // namespace gpufl::report
