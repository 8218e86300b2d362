# Where the CUDA backend (src/cuda) gets its headers. The backend dlopens libcupti and libcuda at run time, so the
# build needs only declarations: cuda.h, cupti*.h, generated_nvtx_meta.h and nvtx3/. They come from, in order:
#
#   1. GPUFL_CUDA_INCLUDE_DIR, when set: one directory that must hold them all (an error names what is missing);
#   2. the CUDA toolkit (find_package(CUDAToolkit) with CUPTI), unless GPUFL_IGNORE_CUDA_TOOLKIT is ON;
#   3. NVIDIA's pip packages nvidia-cuda-cupti, nvidia-cuda-runtime and nvidia-nvtx, which put these headers in
#      <site-packages>/nvidia/cu13/include: looked for on the sys.path of the Python that builds (pip's build
#      environment, where pyproject.toml lists them as build requirements), then in build/cuda-headers/include
#      (what scripts/fetch-cuda-headers.sh unpacks for a C++ build on a machine without the toolkit).
#
# Sets, in the calling scope:
#   GPUFL_HAVE_CUDA          ON when the backend is built
#   GPUFL_CUDA_HEADERS_FROM  one line saying where the headers came from (shown by `gpufl doctor`)
#   GPUFL_HAVE_CUDA_TOOLKIT  ON when the toolkit itself is used (nvcc, cudart: the examples and GPU tests)
#   CUDAToolkit_INCLUDE_DIRS the include directories, under the name src/cuda reads, whichever source they came from
#
# GPUFL_IGNORE_CUDA_TOOLKIT exists to prove the pip path on a machine that has the toolkit (CI builds the wheel
# so), and to build wheels whose headers do not depend on what toolkit the build machine happens to have.
set(GPUFL_CUDA_INCLUDE_DIR "" CACHE PATH
    "A directory holding cuda.h, cupti.h, generated_nvtx_meta.h and nvtx3/ (overrides the search)")
option(GPUFL_IGNORE_CUDA_TOOLKIT "Take the CUDA headers from NVIDIA's pip packages even where a toolkit is installed"
       OFF)

# The headers src/cuda includes (a directory missing one cannot build the backend).
set(_gpufl_cuda_headers cuda.h cupti.h cupti_pcsampling.h cupti_profiler_host.h cupti_range_profiler.h
    cupti_sass_metrics.h cupti_target.h generated_nvtx_meta.h nvtx3/nvToolsExt.h)

# _out: the headers of the list that `dir` lacks ("" when it has all).
function(_gpufl_missing_cuda_headers dir out)
  set(missing "")
  foreach(h IN LISTS _gpufl_cuda_headers)
    if(NOT EXISTS "${dir}/${h}")
      list(APPEND missing ${h})
    endif()
  endforeach()
  set(${out} "${missing}" PARENT_SCOPE)
endfunction()

# _out: "CUDA 13000, CUPTI API 130001", read from the headers themselves.
function(_gpufl_cuda_header_versions dir out)
  set(text "")
  if(EXISTS "${dir}/cuda.h")
    file(STRINGS "${dir}/cuda.h" line REGEX "^#define CUDA_VERSION [0-9]+")
    string(REGEX MATCH "[0-9]+" v "${line}")
    set(text "CUDA ${v}")
  endif()
  if(EXISTS "${dir}/cupti_version.h")
    file(STRINGS "${dir}/cupti_version.h" line REGEX "^#define CUPTI_API_VERSION [0-9]+")
    string(REGEX MATCH "[0-9]+" v "${line}")
    string(APPEND text ", CUPTI API ${v}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(GPUFL_HAVE_CUDA OFF)
set(GPUFL_HAVE_CUDA_TOOLKIT OFF)
set(GPUFL_CUDA_HEADERS_FROM "none")
set(_gpufl_cuda_tried "")
if(NOT GPUFL_WITH_CUDA STREQUAL "OFF")
  # 1. An explicit directory: the only one tried, so that a wrong setting is an error, not a silent fallback.
  if(GPUFL_CUDA_INCLUDE_DIR)
    _gpufl_missing_cuda_headers("${GPUFL_CUDA_INCLUDE_DIR}" _missing)
    if(_missing)
      string(REPLACE ";" ", " _missing "${_missing}")
    message(FATAL_ERROR "GPUFL_CUDA_INCLUDE_DIR=${GPUFL_CUDA_INCLUDE_DIR} lacks ${_missing}")
    endif()
    set(CUDAToolkit_INCLUDE_DIRS "${GPUFL_CUDA_INCLUDE_DIR}")
    set(GPUFL_HAVE_CUDA ON)
    _gpufl_cuda_header_versions("${GPUFL_CUDA_INCLUDE_DIR}" _v)
    set(GPUFL_CUDA_HEADERS_FROM "GPUFL_CUDA_INCLUDE_DIR ${GPUFL_CUDA_INCLUDE_DIR} (${_v})")
  endif()

  # 2. The toolkit.
  if(NOT GPUFL_HAVE_CUDA AND NOT GPUFL_IGNORE_CUDA_TOOLKIT)
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND AND TARGET CUDA::cupti)
      # CUPTI's headers may sit apart from the toolkit's (extras/CUPTI/include).
      get_target_property(_cupti_inc CUDA::cupti INTERFACE_INCLUDE_DIRECTORIES)
      if(_cupti_inc)
        list(APPEND CUDAToolkit_INCLUDE_DIRS ${_cupti_inc})
        list(REMOVE_DUPLICATES CUDAToolkit_INCLUDE_DIRS)
      endif()
      set(GPUFL_HAVE_CUDA ON)
      set(GPUFL_HAVE_CUDA_TOOLKIT ON)
      list(GET CUDAToolkit_INCLUDE_DIRS 0 _first)
      _gpufl_cuda_header_versions("${_first}" _v)
      set(GPUFL_CUDA_HEADERS_FROM "CUDA toolkit ${CUDAToolkit_VERSION} at ${_first} (${_v})")
    else()
      list(APPEND _gpufl_cuda_tried "the CUDA toolkit (find_package(CUDAToolkit) with CUPTI)")
    endif()
  endif()

  # 3. NVIDIA's pip packages: on the building Python's sys.path, then where scripts/fetch-cuda-headers.sh puts them.
  if(NOT GPUFL_HAVE_CUDA)
    set(_py "${Python_EXECUTABLE}")
    if(NOT _py)
      set(_py "${Python3_EXECUTABLE}")
    endif()
    if(NOT _py)
      find_program(_gpufl_python3 NAMES python3 python)
      set(_py "${_gpufl_python3}")
    endif()
    set(_candidates "")
    if(_py)
      execute_process(
        COMMAND "${_py}" -c
                "import os, sys\nfor p in sys.path:\n    d = os.path.join(p or '.', 'nvidia', 'cu13', 'include')\n    if os.path.isfile(os.path.join(d, 'cupti.h')): print(os.path.abspath(d))"
        OUTPUT_VARIABLE _found OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc ERROR_QUIET)
      if(_rc EQUAL 0 AND _found)
        string(REPLACE "\n" ";" _candidates "${_found}")
      endif()
      list(APPEND _gpufl_cuda_tried "nvidia/cu13/include on the sys.path of ${_py}")
    endif()
    list(APPEND _candidates "${PROJECT_SOURCE_DIR}/build/cuda-headers/include")
    list(APPEND _gpufl_cuda_tried "${PROJECT_SOURCE_DIR}/build/cuda-headers/include")
    foreach(dir IN LISTS _candidates)
      _gpufl_missing_cuda_headers("${dir}" _missing)
      if(NOT _missing)
        set(CUDAToolkit_INCLUDE_DIRS "${dir}")
        set(GPUFL_HAVE_CUDA ON)
        _gpufl_cuda_header_versions("${dir}" _v)
        set(GPUFL_CUDA_HEADERS_FROM "NVIDIA pip packages at ${dir} (${_v})")
        break()
      elseif(EXISTS "${dir}/cupti.h")
        string(REPLACE ";" ", " _missing "${_missing}")
        list(APPEND _gpufl_cuda_tried "${dir} (lacks ${_missing})")
      endif()
    endforeach()
  endif()

  if(NOT GPUFL_HAVE_CUDA)
    string(REPLACE ";" "; " _tried "${_gpufl_cuda_tried}")
    set(_how "install the CUDA toolkit, or run scripts/fetch-cuda-headers.sh (NVIDIA's pip packages, headers only), \
or pass -DGPUFL_CUDA_INCLUDE_DIR=<dir>")
    if(GPUFL_WITH_CUDA STREQUAL "ON")
      message(FATAL_ERROR "GPUFL_WITH_CUDA=ON but no CUDA/CUPTI headers were found (looked in: ${_tried}): ${_how}")
    endif()
    message(WARNING "gpufl: no CUDA/CUPTI headers found (looked in: ${_tried}); building without the CUDA backend, "
                    "so gpufl will not trace GPUs: ${_how}")
  endif()
endif()
message(STATUS "gpufl: CUDA/CUPTI backend ${GPUFL_HAVE_CUDA}; headers: ${GPUFL_CUDA_HEADERS_FROM}")
