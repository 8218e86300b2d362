# `cmake --install <build> [--prefix P]`: the runtime library, the injection library, the CLI, the public headers
# and a CMake package, so that another project does
#
#   find_package(gpufl REQUIRED)            # CMAKE_PREFIX_PATH=P
#   target_link_libraries(app PRIVATE gpufl::gpufl)
#
#   P/lib/libgpufl.so{,.0,.0.1.0}          gpufl::gpufl (exported from gpufl_runtime)
#   P/lib/libgpufl_inject.so               what `gpufl trace` injects (found as <bin>/../lib)
#   P/bin/gpufl                            the CLI
#   P/include/gpufl/*.hpp                  the public API
#   P/lib/cmake/gpufl/                     gpuflConfig.cmake, gpuflConfigVersion.cmake, gpuflTargets*.cmake
#
# Components: runtime (the shared libraries and the CLI), devel (headers, the .so link, the CMake package).
#
# Why nothing private leaks: libgpufl.so is linked from gpufl_runtime_objects' object files plus PRIVATE static
# libraries (gpufl_core, gpufl_log_writer, gpufl_report, backends) that end up inside it, and exports only gpufl.map.
# PRIVATE dependencies of a SHARED library are not part of its link interface, so gpuflTargets.cmake names none
# of them (no gpufl_core, simdjson, zstd, CLI11 or CUPTI); a consumer needs only the installed headers and .so.
# tests/package/run.sh checks that.
#
# Installed binaries find their libraries through RUNPATH ($ORIGIN, $ORIGIN/../<libdir>), never LD_LIBRARY_PATH.
# INSTALL_RPATH_USE_LINK_PATH adds the directories of non-system dependencies. libcupti is not one: it is
# dlopen'ed at run time (src/cuda/cupti_loader.hpp says where it is looked for).
include(CMakePackageConfigHelpers)

set(GPUFL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpufl CACHE STRING
    "Where the gpufl CMake package files go, relative to the install prefix")

# The public API: the exported target is gpufl::gpufl (EXPORT_NAME + NAMESPACE), like the in-tree alias.
set_target_properties(gpufl_runtime PROPERTIES EXPORT_NAME gpufl INSTALL_RPATH "$ORIGIN"
                                               INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS gpufl_runtime EXPORT gpuflTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel)
# (its INSTALL_INTERFACE include directory, <prefix>/include, is set in src/runtime/CMakeLists.txt)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpufl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel
        FILES_MATCHING PATTERN "*.hpp")

if(TARGET gpufl_inject)
  set_target_properties(gpufl_inject PROPERTIES INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS gpufl_inject LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_SKIP)
endif()

if(TARGET gpufl)
  set_target_properties(gpufl PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
                                         INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS gpufl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()

install(EXPORT gpuflTargets NAMESPACE gpufl:: DESTINATION ${GPUFL_INSTALL_CMAKEDIR} COMPONENT devel)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gpuflConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gpuflConfig.cmake INSTALL_DESTINATION ${GPUFL_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpuflConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpuflConfig.cmake ${PROJECT_BINARY_DIR}/gpuflConfigVersion.cmake
        DESTINATION ${GPUFL_INSTALL_CMAKEDIR} COMPONENT devel)
