// The parts of the `gpufl._gpufl` extension module, each binding one area.
#pragma once

#include <nanobind/nanobind.h>

namespace gpufl::py {

void bindApi(nanobind::module_& m);     // init/shutdown/scopes/report: api_bindings.cpp
void bindLoader(nanobind::module_& m);  // load_session: session_columns.cpp
void bindBench(nanobind::module_& m);   // benchmark statistics and records: bench_bindings.cpp
void bindScope(nanobind::module_& m);   // gpufl.Scope's native half: scope_bindings.cpp

}  // namespace gpufl::py
