# Deep engines (SASS metrics, PC sampling, range profiler) behind the DeepEngine seam; included from
# src/cuda (tracer.cmake). Links no vendor library: libcupti is reached through the dlopen'ed table
# (cupti_api.hpp, gpufl_cupti), the driver with dlopen (deep_support), and the range profiler's host
# side lives in libcupti (cupti_profiler_host.h), so nvperf_host/target are not needed.
add_library(gpufl_cuda_deep STATIC
  ${CMAKE_CURRENT_LIST_DIR}/deep_support.cpp
  ${CMAKE_CURRENT_LIST_DIR}/capture_tracker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_gate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_activity_switch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_claim.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stall_reasons.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cubin_sass.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sass_metrics_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pc_sampling_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_metric_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_profiler_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine_factory.cpp
)
target_include_directories(gpufl_cuda_deep PUBLIC ${PROJECT_SOURCE_DIR}/src ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(gpufl_cuda_deep PUBLIC gpufl_core gpufl_cupti PRIVATE ${CMAKE_DL_LIBS})

gpufl_add_test(deep_engines_test
  ${CMAKE_CURRENT_LIST_DIR}/stall_reasons_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/deep_support_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/capture_tracker_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_gate_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_activity_switch_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_claim_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cubin_sass_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sass_metrics_engine_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pc_sampling_engine_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_metric_plan_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_profiler_engine_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine_factory_test.cpp
  LIBS gpufl_cuda_deep)
if(TARGET deep_engines_test)
  # A tiny sm_90 cubin with line info for the cubin/SASS tests, when nvcc is here (skipped otherwise).
  find_program(GPUFL_NVCC nvcc HINTS ${CUDAToolkit_BIN_DIR})
  if(GPUFL_NVCC)
    set(_cubin ${CMAKE_CURRENT_BINARY_DIR}/deep_test_kernels.cubin)
    add_custom_command(OUTPUT ${_cubin}
      COMMAND ${GPUFL_NVCC} -cubin -arch=sm_90 -lineinfo -o ${_cubin}
              ${CMAKE_CURRENT_LIST_DIR}/deep_test_kernels.cu
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/deep_test_kernels.cu
      COMMENT "nvcc: deep_test_kernels.cubin")
    add_custom_target(deep_test_cubin DEPENDS ${_cubin})
    add_dependencies(deep_engines_test deep_test_cubin)
    target_compile_definitions(deep_engines_test PRIVATE GPUFL_DEEP_TEST_CUBIN="${_cubin}")
  endif()
endif()
