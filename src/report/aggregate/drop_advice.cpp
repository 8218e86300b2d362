#include "report/aggregate/drop_advice.hpp"

#include <algorithm>
#include <vector>

#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

// What fills each source's buffer, and what records or writes less of it.
const char* remedy(const std::string& source) {
  if (source == "system") return "sample less often (a larger GPUFL_SAMPLE_RATE_MS)";
  if (source == "scope")
    return "open fewer scopes in hot loops, one around a loop rather than one per iteration";
  if (source == "launch")
    return "no host call stacks (GPUFL_STACK_TRACE=0), and a writer that keeps up "
           "(GPUFL_KERNEL_BLOCKS=1, a log_path on a local disk)";
  // activity, activity_buffers_refused: CUPTI's records waiting for the writer.
  return "a writer that keeps up (GPUFL_KERNEL_BLOCKS=1, a log_path on a local disk), or fewer "
         "kernels a second";
}

// Sources that are not full buffers: records the log could not take ("write"), kernels CUPTI gave
// no timestamps ("untimed_kernels"), launches matched to no scope ("launch_attribution"), repeated
// incidents not recorded ("incidents"). Each is said elsewhere.
bool notABuffer(const std::string& source) {
  return source == "write" || source == "untimed_kernels" || source == "launch_attribution" ||
         source == "incidents";
}

}  // namespace

std::string droppedAdvice(const std::map<std::string, uint64_t>& dropped) {
  std::vector<std::pair<uint64_t, std::string>> by_count;
  uint64_t total = 0;
  for (const auto& [source, n] : dropped)
    if (n > 0 && !notABuffer(source)) by_count.emplace_back(n, source), total += n;
  if (total == 0) return "";
  std::sort(by_count.rbegin(), by_count.rend());
  std::string text = formatCount(total) +
                     " records were dropped because gpufl's buffers were full — counts and totals "
                     "in this report are low. The buffer sizes are fixed; record or write less of "
                     "what filled them:";
  std::vector<std::string> said;
  for (const auto& [n, source] : by_count) {
    const std::string r = remedy(source);
    text += " " + source + " " + formatCount(n) + ": ";
    // activity and activity_buffers_refused share a remedy: say it once.
    if (std::find(said.begin(), said.end(), r) != said.end()) {
      text += "as above;";
      continue;
    }
    said.push_back(r);
    text += r + ";";
  }
  text.back() = '.';
  return text;
}

}  // namespace gpufl::report
