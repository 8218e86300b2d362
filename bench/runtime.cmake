# Scope enter+exit cost (bench_scope): the core hot path with a draining consumer, and the public API through
# libgpufl.so with a real session (recording, and disabled).
if(TARGET benchmark::benchmark)
  add_executable(bench_scope ${CMAKE_CURRENT_LIST_DIR}/bench_scope.cpp)
  target_link_libraries(bench_scope PRIVATE gpufl_runtime_static benchmark::benchmark)
endif()
# Scope records kept at a steady high rate (bench_scope_rate): the writer's pacing against the thread buffers.
add_executable(bench_scope_rate ${CMAKE_CURRENT_LIST_DIR}/bench_scope_rate.cpp)
target_link_libraries(bench_scope_rate PRIVATE gpufl::gpufl)
