// Flushing the log when an injected program is stopped by SIGINT or SIGTERM, or calls abort().
//
// Nothing of gpufl::shutdown is async-signal-safe, so the handler only wakes a watcher thread (a
// pipe write, which is safe); the watcher shuts the session down, restores the program's previous
// disposition and re-raises the signal, so the program ends exactly as it would have without gpufl.
// When the program has a handler of its own (Python turns SIGINT into KeyboardInterrupt), that
// handler is called instead and the normal exit path (atexit) flushes the log. For SIGABRT the
// handler itself waits (at most 3 s) for the watcher's flush before the program dies by the signal:
// an aborting program's log then still has what it recorded and its session_end.
#pragma once

namespace gpufl::inject {

// Installs the handlers and starts the watcher. Idempotent; false when the pipe or thread cannot be
// created.
bool installSignalFlush();

}  // namespace gpufl::inject
