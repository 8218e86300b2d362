# The report model: the aggregates of one session (report_model.hpp), their JSON field tables
# (report_fields.hpp), the options, and what sections carry for themselves. Depends on core only.
gpufl_add_library(gpufl_report_model
  ${CMAKE_CURRENT_LIST_DIR}/report_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_options.cpp
)
target_link_libraries(gpufl_report_model PUBLIC gpufl_core)
