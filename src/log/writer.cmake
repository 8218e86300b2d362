# NDJSON writer: formatting, channel files with rotation, background zstd compression of closed segments.
gpufl_add_library(gpufl_log_writer
  ${CMAKE_CURRENT_LIST_DIR}/json_escape.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_block.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ndjson_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/segment_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/log_writer.cpp
)
target_link_libraries(gpufl_log_writer PUBLIC gpufl_core PRIVATE ${GPUFL_ZSTD})

gpufl_add_test(gpufl_json_escape_test ${CMAKE_CURRENT_LIST_DIR}/json_escape_test.cpp LIBS gpufl_log_writer)
# The format tests check every line with simdjson, an independent strict parser (it also validates UTF-8).
gpufl_add_test(gpufl_ndjson_format_test ${CMAKE_CURRENT_LIST_DIR}/ndjson_format_test.cpp
  LIBS gpufl_log_writer simdjson::simdjson)
gpufl_add_test(gpufl_log_writer_test ${CMAKE_CURRENT_LIST_DIR}/log_writer_test.cpp
  LIBS gpufl_log_writer simdjson::simdjson ${GPUFL_ZSTD})
gpufl_add_test(gpufl_log_writer_failure_test ${CMAKE_CURRENT_LIST_DIR}/log_writer_failure_test.cpp
  LIBS gpufl_log_writer ${GPUFL_ZSTD})
gpufl_add_test(gpufl_segment_file_test ${CMAKE_CURRENT_LIST_DIR}/segment_file_test.cpp
  LIBS gpufl_log_writer ${GPUFL_ZSTD})
gpufl_add_test(gpufl_compressor_test ${CMAKE_CURRENT_LIST_DIR}/compressor_test.cpp
  LIBS gpufl_log_writer ${GPUFL_ZSTD})
# Tests build events as partial aggregates ({.sid = ..., .ts_ns = ...}); the rest is meant to be defaulted.
foreach(t gpufl_ndjson_format_test gpufl_log_writer_test gpufl_log_writer_failure_test
    gpufl_segment_file_test gpufl_compressor_test)
  if(TARGET ${t})
    target_compile_options(${t} PRIVATE -Wno-missing-field-initializers)
  endif()
endforeach()
