# gpufl diff on pairs of synthetic training sessions (synthetic_session.hpp), one with a planted regression.
# Built with the benchmarks (GPUFL_BUILD_BENCH); the same noise model is tested in CI by
# src/report/diff_stats_test.cpp on its own small synthetic pairs and a real H200 session.
gpufl_add_test(gpufl_diff_synthetic_test ${CMAKE_CURRENT_LIST_DIR}/diff_synthetic_test.cpp
  LIBS gpufl_synthetic gpufl_report)
