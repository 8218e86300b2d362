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
# cpp-httplib (Debian: libcpp-httplib-dev): the HTTP endpoints of `gpufl monitor`. Debian builds it as a
# shared library whose classes were compiled with OpenSSL, zlib and brotli support; our code must see the same
# definitions (they change struct layouts), so their headers are needed too (libssl-dev, zlib1g-dev,
# libbrotli-dev). Found by path rather than pkg-config, so that a package unpacked into a prefix (the H200:
# scripts/fetch-h200-debs.sh) is found through CMAKE_PREFIX_PATH.
if(NOT TARGET gpufl_httplib)
  find_path(GPUFL_HTTPLIB_INCLUDE httplib.h REQUIRED)
  find_library(GPUFL_HTTPLIB_LIBRARY NAMES cpp-httplib REQUIRED)
  find_path(GPUFL_OPENSSL_INCLUDE openssl/ssl.h REQUIRED)
  find_path(GPUFL_ZLIB_INCLUDE zlib.h REQUIRED)
  find_path(GPUFL_BROTLI_INCLUDE brotli/decode.h REQUIRED)
  add_library(gpufl_httplib INTERFACE)
  target_include_directories(gpufl_httplib SYSTEM INTERFACE
    ${GPUFL_HTTPLIB_INCLUDE} ${GPUFL_OPENSSL_INCLUDE} ${GPUFL_ZLIB_INCLUDE} ${GPUFL_BROTLI_INCLUDE})
  target_compile_definitions(gpufl_httplib INTERFACE
    CPPHTTPLIB_OPENSSL_SUPPORT CPPHTTPLIB_ZLIB_SUPPORT CPPHTTPLIB_BROTLI_SUPPORT)
  target_link_libraries(gpufl_httplib INTERFACE ${GPUFL_HTTPLIB_LIBRARY} Threads::Threads)
endif()
set(GPUFL_HTTPLIB gpufl_httplib)  # what targets link

if(GPUFL_BUILD_TESTS)
  find_package(GTest REQUIRED)   # Debian: libgtest-dev
endif()

# The CUDA backend's headers: the toolkit's, or NVIDIA's pip packages' (GpuflCudaHeaders.cmake says the order).
include(GpuflCudaHeaders)
