// A core header that includes the runtime: scripts/check-layers.py must name this line (tests/CMakeLists.txt).
#pragma once
#include "runtime/session.hpp"
