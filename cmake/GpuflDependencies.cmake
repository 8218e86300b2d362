# Third-party libraries, all from the system's package manager (see README: Debian/Ubuntu package names).
find_package(Threads REQUIRED)

find_package(zstd CONFIG QUIET)
if(TARGET zstd::libzstd_shared)
  set(GPUFL_ZSTD zstd::libzstd_shared)
elseif(TARGET zstd::libzstd_static)
  set(GPUFL_ZSTD zstd::libzstd_static)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
  set(GPUFL_ZSTD PkgConfig::ZSTD)
endif()

find_package(simdjson REQUIRED)  # Debian: libsimdjson-dev
find_package(CLI11 REQUIRED)     # Debian: libcli11-dev
find_package(ZLIB REQUIRED)      # Debian: zlib1g-dev
# cpp-httplib (Debian: libcpp-httplib-dev): HTTP client and server of `gpufl agent`. Its pkg-config file carries
# the defines (OpenSSL, zlib, brotli) the packaged library was built with; they must match.
if(NOT TARGET PkgConfig::HTTPLIB)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
endif()
set(GPUFL_HTTPLIB PkgConfig::HTTPLIB)
if(GPUFL_BUILD_TESTS)
  find_package(GTest REQUIRED)   # Debian: libgtest-dev
endif()

set(GPUFL_HAVE_CUDA OFF)
if(NOT GPUFL_WITH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND TARGET CUDA::cupti)
    set(GPUFL_HAVE_CUDA ON)
  elseif(GPUFL_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPUFL_WITH_CUDA=ON but the CUDA toolkit with CUPTI was not found")
  endif()
endif()
message(STATUS "gpufl: CUDA/CUPTI backend ${GPUFL_HAVE_CUDA}")
