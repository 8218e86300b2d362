// GPU Flight public C++ API: the only header a user includes.
//
//   gpufl::InitOptions opts;
//   opts.app_name = "demo";
//   opts.log_path = "./demo";            // prefix: demo.device.log, demo.scope.log,
//   demo.system.log gpufl::init(opts); GFL_SCOPE("step") { kernel<<<g, b>>>(...); }
//   gpufl::shutdown();
//   gpufl::generateReport();
//
// Every function is safe to call in any order and from any thread: init twice, shutdown twice,
// shutdown without init and scopes after shutdown are harmless. Nothing here throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gpufl/init_options.hpp"  // InitOptions: one table of every option
#include "gpufl/profiling_engine.hpp"
#include "gpufl/version.hpp"

namespace gpufl {

// Starts a session. Returns true when GPU profiling is on; false when it could not start (no GPU,
// no driver, CUPTI taken, ...). Scopes and system sampling still record where possible, and the
// reason is in the log.
bool init(const InitOptions& options);

// Flushes and closes the session. Blocks until everything recorded is on disk.
void shutdown();

// True between a successful init() and shutdown().
bool isProfiling();

// True while a session records (scopes, system samples), with or without GPU profiling: between an
// init() that opened the log and shutdown().
bool isRecording();

// Prints the report of the last session this process ended (or of `log_path` when given) to stdout.
// Returns false when no readable log was found.
bool generateReport(const std::string& log_path = "", int top_n = 10);

// Records an incident now (kind "dump", with `reason`): what is in flight on the GPU, which host
// threads wait for it, the last kernels of each stream, and flushes the log. The program runs on.
// False when no session records. `gpufl dump PID` asks the same from outside.
bool dump(std::string_view reason = "asked by the program");

// Starts/stops system sampling when sampling_auto_start was false.
void startSystemSampling();
void stopSystemSampling();

// A user scope: everything launched on this thread while it lives is attributed to it. Cheap (tens
// of ns).
class Scope {
 public:
  explicit Scope(std::string_view name, std::string_view tag = {});
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  uint64_t id_;
};

// Explicit begin/end, for bindings (Python) where RAII does not fit.
uint64_t scopeBegin(std::string_view name, std::string_view tag = {});
void scopeEnd(uint64_t id);

}  // namespace gpufl

#define GFL_CONCAT_INNER_(a, b) a##b
#define GFL_CONCAT_(a, b) GFL_CONCAT_INNER_(a, b)
// GFL_SCOPE("name") { ... }  and  GFL_SCOPE("name", "tag") { ... }
#define GFL_SCOPE(...) if (::gpufl::Scope GFL_CONCAT_(gfl_scope_, __LINE__){__VA_ARGS__}; true)
