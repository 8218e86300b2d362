# The bare-CUPTI floor library, for the overhead comparison in scripts/bench-overhead.sh.
if(GPUFL_HAVE_CUDA AND TARGET CUDA::cupti)  # links libcupti: the toolkit's
  add_library(gpufl_floor_inject SHARED ${CMAKE_CURRENT_SOURCE_DIR}/floor_inject.cpp)
  target_include_directories(gpufl_floor_inject PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(gpufl_floor_inject PRIVATE CUDA::cupti)
endif()
