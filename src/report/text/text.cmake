# The text report's building blocks: number and name formatting, kernel short names, the output
# with its banners and fields. Depends on core only.
gpufl_add_library(gpufl_report_text
  ${CMAKE_CURRENT_LIST_DIR}/format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/short_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_out.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_table.cpp
)
target_link_libraries(gpufl_report_text PUBLIC gpufl_core)
list(APPEND GPUFL_REPORT_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/format_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/short_names_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_table_test.cpp
)
