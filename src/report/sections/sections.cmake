# The report's sections, one file each (section.hpp says what a section provides), and their list
# (section_list.hpp).
gpufl_add_library(gpufl_report_sections
  ${CMAKE_CURRENT_LIST_DIR}/bench_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/benchmarks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cards.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hints.cpp
  ${CMAKE_CURRENT_LIST_DIR}/incidents_render.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scopes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/section_list.cpp
  ${CMAKE_CURRENT_LIST_DIR}/session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/syncs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/system.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_health.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transfers.cpp
)
target_link_libraries(gpufl_report_sections PUBLIC gpufl_report_model gpufl_report_text gpufl_report_json)
list(APPEND GPUFL_REPORT_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/section_list_test.cpp
)
