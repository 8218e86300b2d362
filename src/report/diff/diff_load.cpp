#include "log/read_damage.hpp"
#include "log/reader.hpp"
#include "report/diff/diff_stats.hpp"

namespace gpufl::report {

bool loadDiffSide(const std::string& prefix, const std::string& session, DiffSide& out,
                  std::vector<std::string>* warnings, std::string* error) {
  DiffCollector collector;
  log::ReadOptions options;
  options.session = session;
  const log::ReadResult r = log::readPrefix(prefix, options, collector);
  if (warnings)
    for (const log::ReadWarning& w : r.warnings) warnings->push_back(log::formatWarning(w));
  if (!r.found_files) {
    *error = "no log files under '" + prefix + "'";
    return false;
  }
  if (!r.any_readable) {
    *error = session.empty() ? "no readable session under '" + prefix + "'"
                             : "no readable session '" + session + "' under '" + prefix + "'";
    return false;
  }
  const std::string id = r.chosen_session_id.empty() ? r.chosen_sid : r.chosen_session_id;
  out = collector.finish(prefix + " (session " + id + ")");
  out.damage = log::describeDamage(r);
  return true;
}

}  // namespace gpufl::report
