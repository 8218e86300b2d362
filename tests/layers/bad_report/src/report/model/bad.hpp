// A model header that reaches up to the sections: check-layers.py must reject it
// (tests/CMakeLists.txt: gpufl_check_layers_catches_report).
#include "report/sections/section.hpp"
