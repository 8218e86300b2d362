#!/usr/bin/env bash
# Installs a gpufl build tree into a temporary prefix and uses it from outside, as a user would:
#   1. cmake --install <build> --prefix <tmp>/prefix
#   2. the exported package names nothing private (gpufl_core, simdjson, zstd, CLI11, CUPTI)
#   3. tests/package/consumer: find_package(gpufl) + gpufl::gpufl, built and run (GFL_SCOPE, init, shutdown)
#   4. <tmp>/prefix/bin/gpufl --version, and `gpufl trace` picks the installed libgpufl_inject.so
# No LD_LIBRARY_PATH: installed binaries find their libraries through RUNPATH. The temporary directory is removed.
#
#   run.sh <cmake> <build dir> <config> <consumer source dir> <generator> <make program> <c++ compiler> <cuda ON|OFF>
# (registered as gpufl_install_package_test in tests/CMakeLists.txt; <config> may be empty)
set -euo pipefail
if [ $# -ne 8 ]; then
  echo "usage: $0 <cmake> <build> <config> <consumer dir> <generator> <make program> <c++ compiler> <cuda ON|OFF>" >&2
  exit 2
fi
CMAKE=$1 BUILD=$2 CONFIG=$3 CONSUMER=$4 GENERATOR=$5 MAKE_PROGRAM=$6 CXX_COMPILER=$7 HAVE_CUDA=$8
SRC=$(cd "$CONSUMER/../../.." && pwd -P)   # the gpufl source tree: the consumer must not reach into it

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpufl_pkg.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
TMP=$(cd "$TMP" && pwd -P)
PREFIX=$TMP/prefix
unset LD_LIBRARY_PATH GPUFL_LOG_PATH GPUFL_APP_NAME GPUFL_ENGINE GPUFL_INJECT_LIB CMAKE_PREFIX_PATH || true

fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== install $BUILD -> $PREFIX"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" ${CONFIG:+--config "$CONFIG"} >"$TMP/install.log" || { cat "$TMP/install.log"; fail "install"; }

for f in lib/libgpufl.so lib/libgpufl.so.0 lib/libgpufl_inject.so bin/gpufl include/gpufl/gpufl.hpp \
         include/gpufl/version.hpp include/gpufl/profiling_engine.hpp lib/cmake/gpufl/gpuflConfig.cmake lib/cmake/gpufl/gpuflConfigVersion.cmake \
         lib/cmake/gpufl/gpuflTargets.cmake; do
  [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done

echo "== exported interface"
targets=$(cat "$PREFIX"/lib/cmake/gpufl/gpuflTargets*.cmake)
if grep -Eiq 'gpufl_core|gpufl_log|gpufl_report|gpufl_runtime_|gpufl_cuda|gpufl_system|simdjson|zstd|CLI11|cupti|Threads' \
     <<<"$targets"; then
  grep -Ein 'gpufl_core|gpufl_log|gpufl_report|gpufl_runtime_|gpufl_cuda|gpufl_system|simdjson|zstd|CLI11|cupti|Threads' \
    "$PREFIX"/lib/cmake/gpufl/gpuflTargets*.cmake >&2
  fail "gpuflTargets names a private dependency"
fi
grep -q 'add_library(gpufl::gpufl SHARED IMPORTED)' <<<"$targets" || fail "no imported target gpufl::gpufl"
if grep -rqF -e "$BUILD" -e "$SRC" "$PREFIX/lib/cmake/gpufl"; then fail "package files point into the build tree"; fi

echo "== consumer: find_package(gpufl) + gpufl::gpufl"
"$CMAKE" -S "$CONSUMER" -B "$TMP/consumer" -G "$GENERATOR" -DCMAKE_MAKE_PROGRAM="$MAKE_PROGRAM" \
  -DCMAKE_CXX_COMPILER="$CXX_COMPILER" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$TMP/consumer-configure.log" 2>&1 ||
  { cat "$TMP/consumer-configure.log"; fail "consumer configure"; }
grep -q "gpufl_DIR:PATH=$PREFIX/lib/cmake/gpufl" "$TMP/consumer/CMakeCache.txt" ||
  fail "find_package(gpufl) did not find the installed package"
"$CMAKE" --build "$TMP/consumer" >"$TMP/consumer-build.log" 2>&1 ||
  { cat "$TMP/consumer-build.log"; fail "consumer build"; }
[ -f "$TMP/consumer/compile_commands.json" ] || fail "no compile_commands.json for the consumer"
if grep -qF -e "$BUILD" -e "$SRC/include" -e "$SRC/src" "$TMP/consumer/compile_commands.json"; then
  fail "consumer compiles against the source or build tree, not the installed headers"
fi
grep -qF "$PREFIX/include" "$TMP/consumer/compile_commands.json" || fail "consumer does not use <prefix>/include"


gpu_arg=""
[ "$HAVE_CUDA" = "ON" ] && gpu_arg="gpu-ok"   # a CUDA build may run where a GPU is; without CUDA init() is false
mkdir -p "$TMP/logs"
(cd "$TMP" && "$TMP/consumer/gpufl_consumer" "$TMP/logs/consumer" $gpu_arg) || fail "consumer run"
[ -s "$TMP/logs/consumer.scope.log" ] || fail "no scope log"
if command -v ldd >/dev/null; then
  # Captured first: `ldd | grep -q` under pipefail fails at random when grep exits before ldd finishes (SIGPIPE).
  consumer_libs=$(ldd "$TMP/consumer/gpufl_consumer")
  inject_libs=$(ldd "$PREFIX/lib/libgpufl_inject.so")
  grep -q "libgpufl.so.0 => $PREFIX/lib/libgpufl.so.0" <<<"$consumer_libs" ||
    { echo "$consumer_libs" >&2; fail "consumer does not load the installed libgpufl.so"; }
  grep -q "libgpufl.so.0 => $PREFIX/lib/libgpufl.so.0" <<<"$inject_libs" ||
    { echo "$inject_libs" >&2; fail "libgpufl_inject.so does not load the installed libgpufl.so"; }
fi

echo "== installed CLI"
version=$("$PREFIX/bin/gpufl" --version)
echo "$version"
[[ $version == gpufl\ * ]] || fail "unexpected --version output: $version"
# shellcheck disable=SC2016  # expanded by the traced sh, not here
inject=$(cd "$TMP" && "$PREFIX/bin/gpufl" trace -q -- sh -c 'printf %s "$CUDA_INJECTION64_PATH"')
[ "$inject" = "$PREFIX/lib/libgpufl_inject.so" ] || fail "gpufl trace injects '$inject', not the installed library"
(cd "$TMP" && "$PREFIX/bin/gpufl" trace -q -- true) || fail "gpufl trace -q -- true"

echo "PASS: installed gpufl at a temporary prefix works from find_package, the CLI and trace"
