# Many processes, one report: the sessions of several prefixes side by side (ranks.hpp).
gpufl_add_library(gpufl_report_ranks
  ${CMAKE_CURRENT_LIST_DIR}/ranks_compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ranks_text.cpp
)
target_link_libraries(gpufl_report_ranks PUBLIC gpufl_report_model gpufl_report_aggregate gpufl_report_text
                                         PRIVATE gpufl_log_reader)
