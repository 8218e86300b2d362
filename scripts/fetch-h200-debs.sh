#!/usr/bin/env bash
# Downloads the Debian packages the H200 test machine lacks (it has no network) into .deb/ (git-ignored), to be
# carried there with the device tool (`carry: [".deb"]`); scripts/gpu-run.sh unpacks them into a private prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deb && cd .deb
# cpp-httplib (`gpufl monitor`, `gpufl agent`): Debian's shared library and the headers its definitions need
# (OpenSSL, brotli; their runtime libraries libssl3, zlib1g and libbrotli1 are on the image); protozero
# (header-only) for the agent's OTLP output and `gpufl export`; the SQLite headers for `gpufl export`, with
# libsqlite3-0 because the dev package's libsqlite3.so link points at it inside the private prefix; the zstd CLI
# (libzstd1 is on the image) for the compressed bytes per kernel of real traces (gpu-run.sh step `size`).
debs=(libsimdjson-dev libsimdjson14 libcpp-httplib-dev libcpp-httplib0.11 libssl-dev libbrotli-dev libprotozero-dev
      libsqlite3-dev libsqlite3-0 zstd)
apt-get download "${debs[@]}" 2>/dev/null || { apt-get update -qq && apt-get download "${debs[@]}"; }
ls -1
