# `gpufl report` against a full-field simdjson parse of the same bytes (gpufl_bench_report): time and peak RSS,
# plain and zstd, many or few kernel names, each figure in a child process pinned to one core.
add_executable(gpufl_bench_report ${CMAKE_CURRENT_LIST_DIR}/bench_report.cpp)
target_include_directories(gpufl_bench_report PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(gpufl_bench_report PRIVATE gpufl_report gpufl_log_reader simdjson::simdjson ${GPUFL_ZSTD})
