# The tracer's launch callback on the application thread (bench_launch_callback), without a GPU.
if(GPUFL_HAVE_CUDA AND TARGET benchmark::benchmark AND TARGET gpufl_cuda)
  add_executable(bench_launch_callback ${CMAKE_CURRENT_LIST_DIR}/bench_launch_callback.cpp)
  target_include_directories(bench_launch_callback PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(bench_launch_callback PRIVATE gpufl_cuda gpufl_runtime_static benchmark::benchmark)
endif()
