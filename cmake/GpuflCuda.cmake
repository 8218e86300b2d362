# CUDA language setup for the examples and GPU tests. They include gpufl headers, which are C++20; CMake before
# 3.26 does not know nvcc's C++20 flag, so it is supplied here when missing.
enable_language(CUDA)
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
