// `gpufl._gpufl`: the native half of the `gpufl` Python package. Kept thin: the runtime, the reader
// and the report are the C++ ones; python/gpufl/ adds the Pythonic surface (keyword arguments,
// enums, context managers, pandas).
#include "bindings.hpp"

NB_MODULE(_gpufl, m) {
  m.doc() = "GPU Flight native module (use the `gpufl` package, not this module directly)";
  gpufl::py::bindApi(m);
  gpufl::py::bindLoader(m);
  gpufl::py::bindBench(m);
  gpufl::py::bindScope(m);
}
