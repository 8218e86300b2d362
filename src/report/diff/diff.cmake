# `gpufl diff`: two sessions compared against their noise (diff_stats.hpp). Reads the log itself; does
# not use the report model.
gpufl_add_library(gpufl_report_diff
  ${CMAKE_CURRENT_LIST_DIR}/diff_load.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diff_render.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diff_stats.cpp
)
target_link_libraries(gpufl_report_diff PUBLIC gpufl_core gpufl_report_text gpufl_report_json
                                        PRIVATE gpufl_log_reader)
list(APPEND GPUFL_REPORT_TESTS ${CMAKE_CURRENT_LIST_DIR}/diff_stats_test.cpp)
