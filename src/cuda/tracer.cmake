# The CUPTI tracer and its session collector (included from src/cuda/CMakeLists.txt).
target_sources(gpufl_cuda PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/activity_buffers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/api_params.cpp
  ${CMAKE_CURRENT_LIST_DIR}/carveout_requests.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_catalog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_tracer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_tracer_drain.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine_time.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_known_issues.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvtx_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvtx_handles.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvtx_injection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvtx_ranges.cpp
)
include(${CMAKE_CURRENT_LIST_DIR}/deep.cmake)
target_link_libraries(gpufl_cuda PUBLIC gpufl_cuda_deep)
# The runtime links gpufl_cuda into libgpufl and registers its collector (src/runtime/builtin_collectors.cpp).

# What the flight recorder reads from API callbacks, against CUPTI's parameter structs.
gpufl_add_test(api_params_test ${CMAKE_CURRENT_LIST_DIR}/api_params_test.cpp
               ${CMAKE_CURRENT_LIST_DIR}/carveout_requests_test.cpp LIBS gpufl_cuda)
# The flight recorder's triggers from host-built API callbacks (errors, out of memory, waits).
gpufl_add_test(tracer_incident_test ${CMAKE_CURRENT_LIST_DIR}/tracer_incident_test.cpp LIBS gpufl_cuda)
# The CUPTI buffer pool: bounded, and memory given back after a burst.
gpufl_add_test(activity_buffers_test ${CMAKE_CURRENT_LIST_DIR}/activity_buffers_test.cpp LIBS gpufl_cuda)
# What is known wrong in a CUPTI release, by version (the health record's cupti_issues).
gpufl_add_test(cupti_known_issues_test ${CMAKE_CURRENT_LIST_DIR}/cupti_known_issues_test.cpp LIBS gpufl_cuda)
# The record checks on the drain's path, fed host-built CUPTI buffers; memory flat over 1M kernels.
gpufl_add_test(tracer_checks_test ${CMAKE_CURRENT_LIST_DIR}/tracer_checks_test.cpp LIBS gpufl_cuda)
gpufl_add_test(engine_time_test ${CMAKE_CURRENT_LIST_DIR}/engine_time_test.cpp LIBS gpufl_cuda)
# The launch/copy callbacks allocate nothing once warm (a preloaded malloc counts: tests/support).
gpufl_add_test(tracer_alloc_test ${CMAKE_CURRENT_LIST_DIR}/tracer_alloc_test.cpp
               LIBS gpufl_cuda gpufl_alloc_counter)
if(TARGET tracer_alloc_test)
  gpufl_preload_alloc_counter(tracer_alloc_test)
endif()
gpufl_add_test(kernel_catalog_test ${CMAKE_CURRENT_LIST_DIR}/kernel_catalog_test.cpp LIBS gpufl_cuda)
# NVTX ranges as scopes: decode fed host-built callback data, the per-thread balance against the core
# scope stack, and the NVTX_INJECTION64_PATH decision.
gpufl_add_test(nvtx_decode_test ${CMAKE_CURRENT_LIST_DIR}/nvtx_decode_test.cpp LIBS gpufl_cuda)
gpufl_add_test(nvtx_ranges_test ${CMAKE_CURRENT_LIST_DIR}/nvtx_ranges_test.cpp LIBS gpufl_cuda)
gpufl_add_test(nvtx_injection_test ${CMAKE_CURRENT_LIST_DIR}/nvtx_injection_test.cpp LIBS gpufl_cuda)
