// Receives events one at a time: the reader calls it while streaming a log, the report aggregates
// through it, tests drive it with hand-built events. Every handler defaults to ignoring the event.
#pragma once

#include "core/events.hpp"
#include "core/record_list.hpp"

namespace gpufl {

// Which file of a prefix a record belongs to.
enum class Channel { Device, Scope, System };
const char* channelName(Channel c);

// One handler per record type, `virtual void onX(const Event&) {}`, named in record_list.hpp (the
// last column there: onSessionStart, onKernel, onMemcpy, ...).
#define GFL_VISITOR_HANDLER_(T, type, channel, on) \
  virtual void on(const T&) {}
class EventVisitor {
 public:
  virtual ~EventVisitor() = default;
  GFL_RECORDS(GFL_VISITOR_HANDLER_)
};
#undef GFL_VISITOR_HANDLER_

// The handler of event type T: `(visitor.*handlerOf<T>)(event)`, for code generic over the types.
template <typename T>
inline constexpr void (EventVisitor::*handlerOf)(const T&) = nullptr;
#define GFL_VISITOR_HANDLER_OF_(T, type, channel, on) \
  template <>                                         \
  inline constexpr void (EventVisitor::*handlerOf<T>)(const T&) = &EventVisitor::on;
GFL_RECORDS(GFL_VISITOR_HANDLER_OF_)
#undef GFL_VISITOR_HANDLER_OF_

// Hands `e` to the visitor's handler for its type.
template <typename T>
void visit(EventVisitor& v, const T& e) {
  static_assert(handlerOf<T> != nullptr, "not a record type of record_list.hpp");
  (v.*handlerOf<T>)(e);
}

// Passes every event on to `next`. Wrappers (the session's sink, filters) derive from it and
// override only what they change, so an event type added to record_list.hpp is forwarded by them,
// not silently dropped.
#define GFL_FORWARD_HANDLER_(T, type, channel, on) \
  void on(const T& e) override {                   \
    next_.on(e);                                   \
  }
class ForwardingVisitor : public EventVisitor {
 public:
  explicit ForwardingVisitor(EventVisitor& next) : next_(next) {}
  GFL_RECORDS(GFL_FORWARD_HANDLER_)

 protected:
  EventVisitor& next_;
};
#undef GFL_FORWARD_HANDLER_

}  // namespace gpufl
