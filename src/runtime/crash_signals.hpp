// The flight recorder's crash triggers: SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and
// std::terminate (InitOptions::incident_signals).
//
// The handler records an incident from state prepared in advance (FlightRecorder::trigger: fixed
// slots, no allocation, no lock), wakes a thread of gpufl's that ends the session (the incident,
// every buffered record and session_end reach the log), waits for it at most kFlushMs, and then
// hands the signal on: to the program's own handler when it had one, otherwise to the default
// action, re-raised, so that the exit status and core dump are what they would have been. A
// crash inside a lock gpufl's flush needs (malloc's) costs the wait and loses the flush, never the
// exit. std::terminate records its incident (with the exception's what()) the same way, then calls
// the previous terminate handler.
#pragma once

namespace gpufl::runtime {

inline constexpr int kCrashFlushMs = 5000;

// Installs the handlers once per process (later calls do nothing); they act while a session
// records and pass the signal on untouched otherwise. False when the flush thread cannot start.
bool installCrashHandlers();

}  // namespace gpufl::runtime
