# The JSON report's building blocks: the writer, and the generic writer of the model's field tables
# (model_json.hpp).
gpufl_add_library(gpufl_report_json
  ${CMAKE_CURRENT_LIST_DIR}/json_writer.cpp
)
target_link_libraries(gpufl_report_json PUBLIC gpufl_report_model gpufl_report_text
                                        PRIVATE gpufl_log_writer)
list(APPEND GPUFL_REPORT_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/json_writer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_json_test.cpp
)
