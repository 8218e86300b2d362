# Synthetic sessions (gpufl_gen_session) and the writer's throughput benchmark (gpufl_bench_writer).
# bytes_per_kernel.sh measures compressed bytes per kernel event with gpufl_gen_session.
add_library(gpufl_synthetic STATIC
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_session.cpp
)
target_include_directories(gpufl_synthetic PUBLIC ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(gpufl_synthetic PUBLIC gpufl_core)

add_executable(gpufl_gen_session ${CMAKE_CURRENT_LIST_DIR}/gen_session.cpp)
target_link_libraries(gpufl_gen_session PRIVATE gpufl_synthetic gpufl_log_writer)

if(TARGET benchmark::benchmark)
  add_executable(gpufl_bench_writer ${CMAKE_CURRENT_LIST_DIR}/bench_writer.cpp)
  target_link_libraries(gpufl_bench_writer PRIVATE gpufl_synthetic gpufl_log_writer benchmark::benchmark)
endif()

gpufl_add_test(gpufl_synthetic_session_test ${CMAKE_CURRENT_LIST_DIR}/synthetic_session_test.cpp
  LIBS gpufl_synthetic gpufl_log_writer)
