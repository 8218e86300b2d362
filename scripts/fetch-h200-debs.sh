#!/usr/bin/env bash
# Downloads the Debian packages the H200 test machine lacks (it has no network) into .deb/ (git-ignored), to be
# carried there with the device tool (`carry: [".deb"]`); scripts/gpu-run.sh unpacks them into a private prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deb && cd .deb
apt-get download libsimdjson-dev libsimdjson14 2>/dev/null || { apt-get update -qq && apt-get download libsimdjson-dev libsimdjson14; }
ls -1
