// What sections aggregate for themselves (sections/section.hpp: Section::collector), carried in the
// Report beside the shared model: one value per type, set by the section's collector at the end of
// the session and read back by the section's renderers.
#pragma once

#include <any>
#include <utility>
#include <vector>

#include "core/event_visitor.hpp"

namespace gpufl::report {

struct Report;

class SectionData {
 public:
  // Stores `value`, replacing an earlier value of the same type.
  template <typename T>
  void set(T value) {
    for (std::any& a : values_)
      if (T* old = std::any_cast<T>(&a)) {
        *old = std::move(value);
        return;
      }
    values_.emplace_back(std::move(value));
  }
  // The value of type T, or nullptr when no collector stored one (a report built without the
  // sections' collectors, or a collector that had nothing to say).
  template <typename T>
  const T* find() const {
    for (const std::any& a : values_)
      if (const T* v = std::any_cast<T>(&a)) return v;
    return nullptr;
  }
  bool empty() const { return values_.empty(); }

 private:
  std::vector<std::any> values_;  // few: one per section with a collector
};

// A section's own aggregation of one session: fed every record (override only the handlers that
// matter; the others ignore theirs), then finish() once the last record is in.
class SectionCollector : public EventVisitor {
 public:
  // Stores the result in `report.section_data`. Called after the shared model is built, so it may
  // read the model too (the session, the kernel groups).
  virtual void finish(Report& report) = 0;
};

}  // namespace gpufl::report
