# Reader throughput (gpufl_bench_reader): kernel events per second and MB/s, plain and .zst, on one core.
add_executable(gpufl_bench_reader ${CMAKE_CURRENT_LIST_DIR}/bench_reader.cpp)
target_include_directories(gpufl_bench_reader PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(gpufl_bench_reader PRIVATE gpufl_log_reader ${GPUFL_ZSTD})
