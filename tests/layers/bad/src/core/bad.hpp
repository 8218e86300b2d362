// A core header including the runtime: check-layers.py must name line 3 (tests/CMakeLists.txt).
#pragma once
#include "runtime/session.hpp"
