// Flushing the log when an injected program is stopped by SIGINT or SIGTERM. (Crashes and abort()
// are the runtime's: runtime/crash_signals.hpp, installed by gpufl::init.)
//
// Nothing of gpufl::shutdown is async-signal-safe, so the handler only wakes a watcher thread (a
// pipe write, which is safe); the watcher ends the session on a thread of its own, waits for it at
// most kStopFlushMs, restores the program's previous disposition and re-raises the signal, so the
// program ends exactly as it would have without gpufl, also when the flush cannot finish (a kernel
// that never ends keeps a deep engine's flush waiting on the GPU). When the program has a handler
// of its own (Python turns SIGINT into KeyboardInterrupt), that handler is called instead and the
// normal exit path (atexit) flushes the log.
#pragma once

namespace gpufl::inject {

inline constexpr int kStopFlushMs = 3000;

// Installs the handlers and starts the watcher. Idempotent; false when the pipe or thread cannot be
// created.
bool installSignalFlush();

}  // namespace gpufl::inject
