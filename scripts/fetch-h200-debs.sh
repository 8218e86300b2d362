#!/usr/bin/env bash
# Downloads the Debian packages the H200 test machine lacks (it has no network) into .deb/ (git-ignored), to be
# carried there with the device tool (`carry: [".deb"]`); scripts/gpu-run.sh unpacks them into a private prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deb && cd .deb
# protozero (header-only) and the SQLite headers are for `gpufl export`; libsqlite3-0 is carried too because the
# dev package's libsqlite3.so link points at it inside the private prefix.
debs=(libsimdjson-dev libsimdjson14 libprotozero-dev libsqlite3-dev libsqlite3-0)
apt-get download "${debs[@]}" 2>/dev/null || { apt-get update -qq && apt-get download "${debs[@]}"; }
ls -1
