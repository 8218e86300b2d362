# Report golden tests (tests/golden/<case>/case.*.log -> expected.txt / expected.json).
# Included from tests/CMakeLists.txt; scripts/regen-goldens.sh rewrites the expected files.
gpufl_add_test(gpufl_report_golden_test ${CMAKE_CURRENT_LIST_DIR}/golden_test.cpp LIBS gpufl_report)
if(TARGET gpufl_report_golden_test)
  target_compile_definitions(gpufl_report_golden_test PRIVATE GPUFL_GOLDEN_DIR="${CMAKE_CURRENT_LIST_DIR}")
endif()
