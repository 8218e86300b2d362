# GCC 12 at -O3 (CMAKE_BUILD_TYPE Release: scripts/run.sh) reports a false -Wrestrict on
# `"literal" + <temporary std::string>`: libstdc++ inserts the literal at the front of the temporary,
# and the optimizer cannot prove the copy does not overlap. The sources that built strings that way now
# append instead; they are compiled once more here, at -O3 with that warning an error, so that the CI
# build (RelWithDebInfo, -O2, where GCC says nothing) fails when the pattern comes back. Object files
# only: nothing links them. GCC 12 only (the CI and development compiler; 13 does not misreport it),
# and not under the sanitizers (their code changes what the optimizer sees).
if(NOT GPUFL_BUILD_TESTS OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU"
   OR NOT CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12 OR CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 13
   OR CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  return()
endif()
add_library(gpufl_restrict_check OBJECT
  ${PROJECT_SOURCE_DIR}/apps/gpufl/cat_merge.cpp
  ${PROJECT_SOURCE_DIR}/src/agent/checkpoint.cpp
  ${PROJECT_SOURCE_DIR}/src/agent/watch_scan.cpp
  ${PROJECT_SOURCE_DIR}/src/core/events.cpp
  ${PROJECT_SOURCE_DIR}/src/monitor/listen_address.cpp
  ${PROJECT_SOURCE_DIR}/src/report/ranks/ranks_text.cpp
  ${PROJECT_SOURCE_DIR}/src/report/report.cpp
  ${PROJECT_SOURCE_DIR}/src/report/sections/cards.cpp
  ${PROJECT_SOURCE_DIR}/src/report/sections/session.cpp
  ${PROJECT_SOURCE_DIR}/src/report/text/format.cpp
  ${PROJECT_SOURCE_DIR}/src/report/text/short_names.cpp
)
target_compile_options(gpufl_restrict_check PRIVATE -O3 -Werror=restrict)
# For their include directories and definitions.
target_link_libraries(gpufl_restrict_check PRIVATE gpufl_cli gpufl_agent gpufl_monitor gpufl_report
                                                   gpufl_log_reader gpufl_core)
