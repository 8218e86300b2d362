# Events -> the report model: ReportBuilder (an EventVisitor) and the aggregators it drives, the
# cards and the hints.
gpufl_add_library(gpufl_report_aggregate
  ${CMAKE_CURRENT_LIST_DIR}/card_advice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/card_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/drop_advice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/duration_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/group_intervals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/group_samples.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hints.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interval_union.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_origin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/incidents.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scope_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sync_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/system_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_health.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transfer_stats.cpp
)
target_link_libraries(gpufl_report_aggregate PUBLIC gpufl_report_model gpufl_report_text)
list(APPEND GPUFL_REPORT_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/drop_advice_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/duration_stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/group_intervals_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/group_samples_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hints_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interval_union_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_origin_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_stats_test.cpp
)
