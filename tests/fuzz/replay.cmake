# The corpora of report_fuzz and cat_fuzz replayed in every test build, without libFuzzer (corpus_replay.cpp):
# each input must pass the target's checks. reader_fuzz's corpus is replayed by src/log/reader.cmake.
foreach(target report cat)
  add_executable(gpufl_${target}_fuzz_replay
    ${CMAKE_CURRENT_LIST_DIR}/${target}_fuzz.cpp ${CMAKE_CURRENT_LIST_DIR}/corpus_replay.cpp)
  target_include_directories(gpufl_${target}_fuzz_replay PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_test(NAME gpufl_${target}_fuzz_replay
    COMMAND gpufl_${target}_fuzz_replay ${CMAKE_CURRENT_LIST_DIR}/${target}_corpus)
endforeach()
target_link_libraries(gpufl_report_fuzz_replay PRIVATE gpufl_report gpufl_log_reader gpufl_log_writer gpufl_core)
target_link_libraries(gpufl_cat_fuzz_replay PRIVATE gpufl_log_writer gpufl_log_reader gpufl_core)
