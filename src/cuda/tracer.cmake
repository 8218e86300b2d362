# The CUPTI tracer and its session collector (included from src/cuda/CMakeLists.txt).
target_sources(gpufl_cuda PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/activity_buffers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/correlation_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_catalog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_tracer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_collector.cpp
)
include(${CMAKE_CURRENT_LIST_DIR}/deep.cmake OPTIONAL)
if(TARGET gpufl_cuda_deep)
  target_link_libraries(gpufl_cuda PUBLIC gpufl_cuda_deep)
endif()
# The runtime links gpufl_cuda into libgpufl and registers this factory (see src/runtime/collector.hpp).
set_property(GLOBAL APPEND PROPERTY GPUFL_COLLECTORS "gpufl_cuda|cuda/cuda_collector.hpp|gpufl::cuda::makeCollector")

gpufl_add_test(correlation_table_test ${CMAKE_CURRENT_LIST_DIR}/correlation_table_test.cpp LIBS gpufl_cuda)
gpufl_add_test(kernel_catalog_test ${CMAKE_CURRENT_LIST_DIR}/kernel_catalog_test.cpp LIBS gpufl_cuda)
