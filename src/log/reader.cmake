# Streaming reader of a log prefix (plain and zstd segments, simdjson On-Demand), its tests and the replay of
# the fuzz corpus (tests/fuzz itself is only added with GPUFL_BUILD_FUZZ, but the corpus runs in every test
# build). Paths are absolute so that this file can be included from any directory.
set(_reader_dir ${CMAKE_CURRENT_LIST_DIR})
gpufl_add_library(gpufl_log_reader
  ${_reader_dir}/kernel_block_read.cpp
  ${_reader_dir}/kernel_line.cpp
  ${_reader_dir}/line_source.cpp
  ${_reader_dir}/read_damage.cpp
  ${_reader_dir}/reader.cpp
  ${_reader_dir}/record_fields.cpp
  ${_reader_dir}/record_parser.cpp
  ${_reader_dir}/record_types.cpp
  ${_reader_dir}/segments.cpp
)
target_link_libraries(gpufl_log_reader
  PUBLIC gpufl_core
  PRIVATE simdjson::simdjson ${GPUFL_ZSTD} Threads::Threads
)

gpufl_add_test(gpufl_log_reader_test
  ${_reader_dir}/line_source_test.cpp
  ${_reader_dir}/record_parser_test.cpp
  ${_reader_dir}/record_damage_test.cpp
  ${_reader_dir}/record_types_test.cpp
  ${_reader_dir}/reader_test.cpp
  ${_reader_dir}/reader_integrity_test.cpp
  ${_reader_dir}/segments_test.cpp
  LIBS gpufl_log_reader simdjson::simdjson ${GPUFL_ZSTD}
)

if(GPUFL_BUILD_TESTS)
  add_executable(gpufl_reader_fuzz_replay
    ${PROJECT_SOURCE_DIR}/tests/fuzz/reader_fuzz.cpp
    ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus_replay.cpp
  )
  target_link_libraries(gpufl_reader_fuzz_replay PRIVATE gpufl_log_reader)
  target_include_directories(gpufl_reader_fuzz_replay PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_test(NAME gpufl_reader_fuzz_replay
    COMMAND gpufl_reader_fuzz_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus)
endif()

# Writer and reader together: what a damaged line of a kernel delta chain costs.
gpufl_add_test(gpufl_kernel_chain_test ${_reader_dir}/kernel_chain_test.cpp
  LIBS gpufl_log_reader gpufl_log_writer ${GPUFL_ZSTD}
)

# Every field of every record type through the writer and back through the reader (core/record_schema.hpp).
gpufl_add_test(gpufl_schema_roundtrip_test ${_reader_dir}/schema_roundtrip_test.cpp
  LIBS gpufl_log_reader gpufl_log_writer
)

# The writer-layout kernel_event scanner against simdjson, over writer output damaged at random.
gpufl_add_test(gpufl_kernel_line_test ${_reader_dir}/kernel_line_test.cpp
  LIBS gpufl_log_reader gpufl_log_writer
)

# kernel_block lines (the compact kernel encoding): codec, reader and writer together.
gpufl_add_test(gpufl_kernel_block_test ${_reader_dir}/kernel_block_test.cpp
  LIBS gpufl_log_reader gpufl_log_writer simdjson::simdjson
)
if(TARGET gpufl_kernel_block_test)
  target_compile_options(gpufl_kernel_block_test PRIVATE -Wno-missing-field-initializers)
endif()
